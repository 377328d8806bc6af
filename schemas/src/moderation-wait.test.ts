import { describe, expect, it } from 'vitest';
import { moderationWaitText } from './moderation-wait.ts';

describe('moderation wait wording', () => {
  it('says minutes under an hour, rounded up, and hours from there', () => {
    expect(moderationWaitText(0)).toBe('about 1 minute');
    expect(moderationWaitText(900)).toBe('about 15 minutes');
    expect(moderationWaitText(901)).toBe('about 16 minutes');
    expect(moderationWaitText(3_540)).toBe('about 59 minutes');
    expect(moderationWaitText(3_600)).toBe('about 1 hour');
    expect(moderationWaitText(4 * 3_600 + 1_000)).toBe('about 4 hours');
    expect(moderationWaitText(2 * 86_400)).toBe('about 48 hours');
  });
});
