import { describe, expect, it } from 'vitest';
import { candidateFixture } from '../../test/fixtures/auction-fixtures.ts';
import { FrequencyCapCache, userKeyOf } from './frequency-caps.ts';
import type { FrequencyStore } from './frequency-caps.ts';
import type { CapCount } from './user-counts.ts';

/** A store that records what it was sent, in order, and answers reads with `held`. */
function recordingStore(held: Map<number, CapCount> = new Map()) {
  const sent: string[] = [];
  const store: FrequencyStore = {
    read: (key) => (sent.push(`read ${key}`), Promise.resolve(held)),
    count: (key, campaign, servedBy) => (sent.push(`count ${key} ${campaign} ${servedBy}`), Promise.resolve()),
  };
  return { store, sent };
}
const capped = candidateFixture({ id: 9, frequency_cap: { impressions: 2, period_hours: 1 } });
const settle = () => new Promise((r) => setImmediate(r));

describe('frequency cap cache', () => {
  it("reads a user's counts at first sight and decides from them once they are in", async () => {
    const { store, sent } = recordingStore(new Map([[9, { total: 2, own: 0, ends: Date.now() + 60_000 }]]));
    const caps = new FrequencyCapCache({ store });
    // The first request does not wait for the read.
    expect(caps.viewer('w:someone', Date.now())?.capped(capped)).toBe(false);
    expect(sent).toEqual([`read ${userKeyOf('w:someone')}`]);
    await settle();
    expect(caps.viewer('w:someone', Date.now())?.capped(capped)).toBe(true);
  });

  it("sends a counted ad, then reads the user's counts after it, when it holds the user", async () => {
    const { store, sent } = recordingStore();
    const caps = new FrequencyCapCache({ store });
    const viewer = caps.viewer('w:someone', Date.now());
    viewer?.capped(capped);
    viewer?.served(capped);
    await settle();
    sent.length = 0;
    const key = viewer?.key ?? '';
    caps.counted({ user: key, campaignId: 9, periodHours: 1, servedBy: 'e1' }, Date.now());
    expect(sent).toEqual([`count ${key} 9 e1`, `read ${key}`]);
    // A user it does not hold: only the count.
    caps.counted({ user: 'other', campaignId: 9, periodHours: 1, servedBy: 'e1' }, Date.now());
    expect(sent.at(-1)).toBe('count other 9 e1');
  });

  it('keeps at most maxUsers, dropping the one seen least recently', async () => {
    const { store, sent } = recordingStore();
    const caps = new FrequencyCapCache({ store, maxUsers: 2 });
    const t = 1_000_000;
    caps.viewer('w:a', t)?.capped(capped);
    caps.viewer('w:b', t)?.capped(capped);
    await settle();
    caps.viewer('w:a', t + 1_000)?.capped(capped);
    caps.viewer('w:c', t + 1_000)?.capped(capped);
    await settle();
    expect(caps.size).toBe(2);
    sent.length = 0;
    // a was read a moment ago: no read; b was dropped: seen again, it is read as a new user.
    caps.viewer('w:a', t + 1_100)?.capped(capped);
    caps.viewer('w:b', t + 1_100)?.capped(capped);
    expect(sent).toEqual([`read ${userKeyOf('w:b')}`]);
  });
});
