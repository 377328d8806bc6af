import { describe, expect, it } from 'vitest';
import { NO_BID_REASONS } from './events.ts';
import { NO_BID_WORDS } from './no-bid-words.ts';

describe('NO_BID_WORDS', () => {
  it('has words for every no-bid reason, and for no other', () => {
    expect(Object.keys(NO_BID_WORDS).sort()).toEqual([...NO_BID_REASONS].sort());
  });

  it('says each in a sentence, never the reason code itself', () => {
    for (const reason of NO_BID_REASONS) {
      const words = NO_BID_WORDS[reason];
      expect(words.trim().length, reason).toBeGreaterThan(15);
      expect(words, reason).toMatch(/\.$/);
      expect(words, reason).not.toContain(reason.includes('_') ? reason : `${reason}_`);
    }
  });
});
