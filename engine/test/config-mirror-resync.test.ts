import { CFG_LOG } from '@adnet/schemas/redis-keys';
import { readSnapshot } from '@adnet/schemas/wire/change-log';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigStore } from '@adnet/test-support/admin-config-store';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { buildIndex } from '../src/index/engine-index.ts';
import type { EngineIndex } from '../src/index/engine-index.ts';
import { campaignFixture, creativeFixture } from './fixtures/index-fixtures.ts';
import { ConfigMirror } from '../src/sync/config-mirror.ts';

// A running mirror whose log was trimmed past its position takes a fresh snapshot and applies only what
// differs through the incremental update: the result equals a full build over the snapshot, and what did
// not change keeps its objects (a full build would have made every pace handle anew).

let server: TestRedis;
let redis: Redis;
let subscriber: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url);
  subscriber = new Redis(server.url);
});
afterAll(async () => {
  await Promise.all([redis.quit(), subscriber.quit()]);
  await server.stop();
});

const lists = (index: EngineIndex) =>
  [...index.slots]
    .map(([key, list]) => [key, list.map((c) => `${c.campaignId}/${c.creativeId}/${c.bidMicroCents}`)])
    .sort(([a], [b]) => String(a).localeCompare(String(b)));

describe('the config mirror after a trimmed log', () => {
  it('applies the snapshot as its difference from the mirror, equal to a full build over it', async () => {
    const store = new ConfigStore(redis, 1_000_000);
    const CAMPAIGNS = 60;
    for (let id = 1; id <= CAMPAIGNS; id++) {
      await store.commit('campaign', id, {
        expectedRev: 0,
        value: campaignFixture({ id, bid_micro_cents: 100_000 + id, geo_include: id % 2 ? ['DEU'] : [] }),
      });
      await store.commit('creative', id, { expectedRev: 0, value: creativeFixture({ id, campaign_id: id }) });
    }
    const mirror = new ConfigMirror({ redis, subscriber, pollMs: 3_600_000 });
    await mirror.start();
    // No notices from here on: the mirror learns of the changes below only when told to catch up.
    await subscriber.unsubscribe();
    const before = mirror.index as EngineIndex;
    expect(before.candidateCount).toBe(CAMPAIGNS);

    await store.commit('campaign', 1, {
      expectedRev: 1,
      value: campaignFixture({ id: 1, bid_micro_cents: 999_000, geo_include: ['DEU'] }),
    });
    await store.commit('campaign', 2, { expectedRev: 1, value: campaignFixture({ id: 2, status: 'paused' }) });
    await store.remove('creative', 3, { expectedRev: 1, value: creativeFixture({ id: 3, campaign_id: 3 }) });
    await store.commit('campaign', CAMPAIGNS + 1, { expectedRev: 0, value: campaignFixture({ id: CAMPAIGNS + 1 }) });
    const last = await store.commit('creative', CAMPAIGNS + 1, {
      expectedRev: 0,
      value: creativeFixture({ id: CAMPAIGNS + 1, campaign_id: CAMPAIGNS + 1 }),
    });
    // Trimmed past the mirror's position: it must take a snapshot.
    await redis.xtrim(CFG_LOG, 'MAXLEN', 1);
    await mirror.trigger();
    await mirror.stop();

    const after = mirror.index as EngineIndex;
    expect(after.seq).toBe(last);
    const snap = await readSnapshot(redis);
    expect(lists(after)).toEqual(lists(buildIndex(snap.entities, snap.seq)));
    expect(after.candidateCount).toBe(CAMPAIGNS - 2 + 1);
    expect(after.slots.get('banner:300x250|DEU')?.[0]?.bidMicroCents).toBe(999_000);
    // Only the difference was applied: an unchanged campaign keeps its pace handle.
    expect(after.paces.get(4)).toBe(before.paces.get(4));
    expect(after.paces.has(2)).toBe(false);
  });
});
