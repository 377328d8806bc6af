import { describe, expect, it } from 'vitest';
import { FrequencyCapCache, userKeyOf } from '../../frequency/frequency-caps.ts';
import { AudienceMembers } from '../../frequency/audience-members.ts';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { audienceFilter } from './audience.ts';

/** The real per-engine caches; a store whose reads answer what `held` says. */
async function viewers(held: Record<string, Record<number, number>>) {
  const members = new AudienceMembers({
    store: {
      read: (key) => Promise.resolve(new Map(Object.entries(held[key] ?? {}).map(([a, e]) => [Number(a), e]))),
      add: () => Promise.resolve(),
    },
  });
  const caps = new FrequencyCapCache({
    store: { read: () => new Promise(() => undefined), count: () => Promise.resolve() },
    members,
  });
  // The first look sends the reads; the filter answers from them once they are in.
  for (const id of Object.keys(ids)) members.memberOfAny(ids[id] as string, [0], 0);
  await new Promise((r) => setImmediate(r));
  return (user: string | undefined, cookie?: string) => caps.viewer(user, 1_000, cookie);
}
const ids: Record<string, string> = { alice: 'w:alice-id', bob: 'w:bob-id', cookie: 'c:cookie-id' };

describe('audience filter', () => {
  it('serves an including campaign only to members of one of its audiences', async () => {
    const viewer = await viewers({ [userKeyOf('w:alice-id')]: { 5: 2_000 } });
    const c = candidateFixture({ audiences_include: [4, 5] });
    expect(audienceFilter.reject(c, impFixture({ viewer: viewer('w:alice-id') }))).toBe(false);
    expect(audienceFilter.reject(c, impFixture({ viewer: viewer('w:bob-id') }))).toBe(true);
    // No first-party id: a member of nothing.
    expect(audienceFilter.reject(c, impFixture({ viewer: undefined }))).toBe(true);
  });

  it('never serves an excluding campaign to a member, and serves everyone else', async () => {
    const viewer = await viewers({ [userKeyOf('w:alice-id')]: { 5: 2_000 } });
    const c = candidateFixture({ audiences_exclude: [5] });
    expect(audienceFilter.reject(c, impFixture({ viewer: viewer('w:alice-id') }))).toBe(true);
    expect(audienceFilter.reject(c, impFixture({ viewer: viewer('w:bob-id') }))).toBe(false);
    expect(audienceFilter.reject(c, impFixture({ viewer: undefined }))).toBe(false);
  });

  it('counts a membership only until it ends', async () => {
    const viewer = await viewers({ [userKeyOf('w:alice-id')]: { 5: 1_000 } });
    // The viewer's time is 1 000: a membership ending then is over.
    expect(
      audienceFilter.reject(candidateFixture({ audiences_include: [5] }), impFixture({ viewer: viewer('w:alice-id') })),
    ).toBe(true);
  });

  it("knows a browser by our cookie's id too (pixel audiences)", async () => {
    const viewer = await viewers({ [userKeyOf('c:cookie-id')]: { 9: 5_000 } });
    const c = candidateFixture({ audiences_include: [9] });
    expect(audienceFilter.reject(c, impFixture({ viewer: viewer('w:bob-id', 'c:cookie-id') }))).toBe(false);
    expect(audienceFilter.reject(c, impFixture({ viewer: viewer('w:bob-id') }))).toBe(true);
  });

  it('costs a campaign without audiences one field: it never looks the viewer up', () => {
    let asked = 0;
    const members = {
      memberOfAny: () => {
        asked++;
        return true;
      },
    };
    const caps = new FrequencyCapCache({
      store: { read: () => Promise.resolve(new Map()), count: () => Promise.resolve() },
      members,
    });
    const c = candidateFixture();
    expect(c.audiences).toBeNull();
    expect(audienceFilter.reject(c, impFixture({ viewer: caps.viewer('w:alice-id', 0) }))).toBe(false);
    expect(asked).toBe(0);
    expect(caps.size).toBe(0);
  });
});
