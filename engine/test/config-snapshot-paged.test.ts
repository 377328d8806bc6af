import { CFG_LOG, cfgHash } from '@adnet/schemas/redis-keys';
import { readSnapshot, readSnapshotAtomic } from '@adnet/schemas/wire/change-log';
import type { ChangeLogSource, Snapshot } from '@adnet/schemas/wire/change-log';
import { beforeEach, describe, expect, it } from 'vitest';
import { ConfigStore } from '@adnet/test-support/admin-config-store';
import { redisForTests } from '@adnet/test-support/redis';
import { campaignFixture, creativeFixture } from './fixtures/index-fixtures.ts';

// The snapshot is read in pages (HSCAN), then the log after the position taken before the first page is
// replayed: what the admin writes during the read must end up exactly as a one-transaction read taken after
// it, at the same position.

const local = redisForTests();
beforeEach(async () => {
  await local.redis.flushall();
});

/** Over the hashes' compact encoding (Redis answers small hashes whole), so the read takes several pages. */
const CAMPAIGNS = 2_500;

async function seed(store: ConfigStore): Promise<void> {
  for (let id = 1; id <= CAMPAIGNS; id++) {
    await store.commit('campaign', id, {
      expectedRev: 0,
      value: campaignFixture({ id, bid_micro_cents: 100_000 + id }),
    });
    if (id % 2 === 0)
      await store.commit('creative', id, { expectedRev: 0, value: creativeFixture({ id, campaign_id: id }) });
  }
}

/**
 * `redis`, with `during` run before each HSCAN page is read: changes written while the snapshot is taken.
 * `starts` counts the paged reads begun (each takes the log's position first).
 */
function writingDuringPages(
  during: (page: number) => Promise<void>,
): ChangeLogSource & { pages: number; starts: number } {
  const source = {
    pages: 0,
    starts: 0,
    multi: () => local.redis.multi(),
    hscanBuffer: async (key: string, cursor: string, count: 'COUNT', n: number) => {
      await during(source.pages++);
      return local.redis.hscanBuffer(key, cursor, count, n);
    },
    // ioredis's argument lists, passed on as they are.
    xrange: (...args: [key: string, start: string, end: string, count: 'COUNT', n: number]) =>
      local.redis.xrange(...args),
    xrevrange: (...args: [key: string, end: string, start: string, count: 'COUNT', n: number]) => {
      source.starts++;
      return local.redis.xrevrange(...args);
    },
    xrangeBuffer: (...args: [key: string, start: string, end: string, count: 'COUNT', n: number]) =>
      local.redis.xrangeBuffer(...args),
  };
  return source;
}

const sorted = (snap: Snapshot) =>
  Object.fromEntries(Object.entries(snap.entities).map(([kind, map]) => [kind, [...map].sort(([a], [b]) => a - b)]));

describe('the paged snapshot read', () => {
  it(
    'converges to the configuration as of its last log entry while changes are written during the read',
    { timeout: 60_000 },
    async () => {
      const store = new ConfigStore(local.redis, 1_000_000);
      await seed(store);
      const revs = new Map<number, number>();
      const rev = (id: number) => revs.get(id) ?? 1;
      let next = CAMPAIGNS + 1;
      let last = '';
      const source = writingDuringPages(async (page) => {
        // Every kind of change, on ids the pages have read already and ids they have not: a new bid, a pause,
        // a deleted creative, a new campaign (and one made and deleted again within the read).
        for (let k = 0; k < 5; k++) {
          const id = 1 + ((page * 977 + k * 311) % CAMPAIGNS);
          last = await store.commit('campaign', id, {
            expectedRev: rev(id),
            value: campaignFixture({
              id,
              bid_micro_cents: 500_000 + page * 10 + k,
              status: k === 4 ? 'paused' : 'active',
            }),
          });
          revs.set(id, rev(id) + 1);
        }
        const creative = 2 + 2 * ((page * 131) % (CAMPAIGNS / 2));
        if (await local.redis.hexists(cfgHash('creative'), String(creative))) {
          const current = await store.read<unknown>('creative', creative);
          last = await store.remove('creative', creative, {
            expectedRev: current?.rev ?? 0,
            value: creativeFixture({ id: creative, campaign_id: creative }),
          });
        }
        const id = next++;
        last = await store.commit('campaign', id, { expectedRev: 0, value: campaignFixture({ id }) });
        if (page % 2 === 1)
          last = await store.remove('campaign', id, { expectedRev: 1, value: campaignFixture({ id }) });
      });

      const paged = await readSnapshot(source);
      expect(source.pages).toBeGreaterThan(3);
      expect(source.starts).toBe(1);
      const atomic = await readSnapshotAtomic(local.redis);
      expect(paged.seq).toBe(last);
      expect(atomic.seq).toBe(last);
      expect(sorted(paged)).toEqual(sorted(atomic));
    },
  );

  it('reads again when the log is trimmed past its start during the read', async () => {
    const store = new ConfigStore(local.redis, 1_000_000);
    for (let id = 1; id <= 50; id++)
      await store.commit('campaign', id, { expectedRev: 0, value: campaignFixture({ id }) });
    const source = writingDuringPages(async (page) => {
      if (page !== 0) return;
      // Two changes, then the log cut to the last: the first change is gone from the log, as in a trim
      // past the reader's position, so the replay alone would miss it.
      await store.commit('campaign', 1, {
        expectedRev: 1,
        value: campaignFixture({ id: 1, bid_micro_cents: 777_000 }),
      });
      await store.commit('campaign', 2, {
        expectedRev: 1,
        value: campaignFixture({ id: 2, bid_micro_cents: 888_000 }),
      });
      await local.redis.xtrim(CFG_LOG, 'MAXLEN', 1);
    });
    const paged = await readSnapshot(source);
    expect(source.starts).toBe(2);
    expect(sorted(paged)).toEqual(sorted(await readSnapshotAtomic(local.redis)));
    expect((paged.entities.campaign.get(1) as { bid_micro_cents: number }).bid_micro_cents).toBe(777_000);
  });

  it('falls back to the one-transaction read when every paged read is trimmed past its start', async () => {
    const store = new ConfigStore(local.redis, 1_000_000);
    for (let id = 1; id <= 20; id++)
      await store.commit('campaign', id, { expectedRev: 0, value: campaignFixture({ id }) });
    let rev = 1;
    const source = writingDuringPages(async (page) => {
      await store.commit('campaign', 1, {
        expectedRev: rev,
        value: campaignFixture({ id: 1, bid_micro_cents: 300_000 + page }),
      });
      await store.commit('campaign', 2, {
        expectedRev: rev,
        value: campaignFixture({ id: 2, bid_micro_cents: 400_000 + page }),
      });
      rev++;
      await local.redis.xtrim(CFG_LOG, 'MAXLEN', 1);
    });
    const snap = await readSnapshot(source);
    expect(source.starts).toBe(3);
    expect(sorted(snap)).toEqual(sorted(await readSnapshotAtomic(local.redis)));
    expect(snap.seq).toBe((await local.redis.xrevrange(CFG_LOG, '+', '-', 'COUNT', 1))[0]?.[0]);
  });
});
