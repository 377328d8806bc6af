import { countedKey } from '@adnet/schemas/redis-keys';
import { clickKey, decodeClickRecord } from '@adnet/schemas/wire/click-record';
import { connectRedis } from '@adnet/runtime/redis-connect';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { startRedisCluster } from '@adnet/test-support/redis-cluster';
import { RedisCounters } from '../src/store/counters.ts';
import { TurnBatch } from '../src/store/turn-batch.ts';

let server: TestRedis;
let redis: Redis;
let other: Redis;

beforeAll(async () => {
  server = await startRedis();
  redis = new Redis(server.url, { enableAutoPipelining: true });
  other = new Redis(server.url, { enableAutoPipelining: true });
});
afterAll(async () => {
  await redis.quit();
  await other.quit();
  await server.stop();
});

const turn = () => new Promise((r) => setImmediate(r));

describe('once-only marks asked for together (one script call per event-loop turn)', () => {
  it('count each ticket once among concurrent calls, duplicates inside one batch and across batches, on two engines', async () => {
    const a = new RedisCounters(redis);
    const b = new RedisCounters(other);
    const before = Date.now();
    // 1 500 distinct tickets, each asked for 3 times: twice in the same turn on engine a (beyond the
    // 512-mark batch limit, so a turn splits), once on engine b in the same turn, then again a turn later.
    const ids = Array.from({ length: 1_500 }, (_, i) => `bid-${i}`);
    const first = await Promise.all(
      ids.flatMap((id) => [a.countOnce('imp', id), b.countOnce('imp', id), a.countOnce('imp', id)]),
    );
    await turn();
    const later = await Promise.all(ids.map((id) => (Number(id.slice(4)) % 2 ? a : b).countOnce('imp', id)));
    for (let i = 0; i < ids.length; i++) expect(first.slice(i * 3, i * 3 + 3).filter(Boolean)).toHaveLength(1);
    expect(later.every((c) => !c)).toBe(true);
    // Each mark keeps when it was counted (clicks are judged by it) and a week's TTL.
    const at = await a.countedAt('imp', 'bid-7');
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(Date.now());
    expect(await redis.ttl(countedKey('imp', 'bid-7'))).toBeGreaterThan(7 * 86_400 - 60);
    // Kinds are apart: the same bid's click is still to count.
    expect(await a.countOnce('click', 'bid-7')).toBe(true);
  });

  it('fail every call of a batch Redis refuses, and count each mark once when it takes them again', async () => {
    const a = new RedisCounters(redis);
    expect(await a.countOnce('win', 'taken')).toBe(true);
    // Out of memory: Redis refuses the script (it writes) before running it, so no mark of the turn is set.
    await redis.config('SET', 'maxmemory', '1');
    try {
      const results = await Promise.allSettled([a.countOnce('win', 'fresh'), a.countOnce('win', 'taken')]);
      expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    } finally {
      await redis.config('SET', 'maxmemory', '0');
    }
    expect(
      await Promise.all([a.countOnce('win', 'fresh'), a.countOnce('win', 'taken'), a.countOnce('win', 'fresh')]),
    ).toEqual([true, false, false]);
  });

  it("count a click once per ticket and its fingerprint's clicks per minute, batched, with the counter kept two minutes", async () => {
    const a = new RedisCounters(redis);
    const b = new RedisCounters(other);
    const now = Date.UTC(2026, 0, 1, 12, 0, 30);
    // 7 tickets clicked from one fingerprint, each ticket twice in the same turn (on two engines).
    const counts = await Promise.all(
      Array.from({ length: 7 }, (_, i) => [
        a.countClick(`t${i}`, 'fpA', now),
        b.countClick(`t${i}`, 'fpA', now),
      ]).flat(),
    );
    expect(counts.filter((n) => n === undefined)).toHaveLength(7);
    expect(counts.filter((n): n is number => n !== undefined).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7]);
    // A repeat counts against no fingerprint; the next minute and another fingerprint start at 1.
    expect(await a.countClick('t0', 'fpA', now)).toBeUndefined();
    expect(await a.countClick('t8', 'fpA', now + 60_000)).toBe(1);
    expect(await a.countClick('t9', 'fpB', now)).toBe(1);
    expect(await a.countClick('t10', 'fpA', now)).toBe(8);
    // The click's mark is the ticket's once-only click mark.
    expect(await a.countOnce('click', 't9')).toBe(false);
    expect(await a.countedAt('click', 't9')).toBeGreaterThan(0);
    const ttl = await redis.ttl(`clicks:fp:{fpA}:${Math.floor(now / 60_000)}`);
    expect(ttl).toBeGreaterThan(100);
    expect(ttl).toBeLessThanOrEqual(120);
  });
});

describe('click records written together (one script call per turn)', () => {
  it("keep the first record of a click unless replaced, in the order the clicks asked, and a month's TTL", async () => {
    const a = new RedisCounters(redis);
    const record = (ts: number, invalid: boolean) => ({
      campaign_id: 1,
      creative_id: 2,
      advertiser_id: 3,
      publisher_id: 4,
      site_id: 5,
      zone_id: 6,
      ts,
      invalid,
    });
    const kept = async (id: string) => decodeClickRecord(await redis.get(clickKey(id)))?.ts;
    // One turn: two first-record writes and a replacement of one click, a first write of 600 others (past the batch limit).
    await Promise.all([
      a.saveClick('c1', record(1, true), false),
      a.saveClick('c1', record(2, true), false),
      a.saveClick('c2', record(3, true), false),
      a.saveClick('c2', record(4, false), true),
      ...Array.from({ length: 600 }, (_, i) => a.saveClick(`m${i}`, record(100 + i, false), false)),
    ]);
    expect(await kept('c1')).toBe(1);
    expect(await kept('c2')).toBe(4);
    expect(await kept('m599')).toBe(699);
    await a.saveClick('c1', record(5, false), true);
    await a.saveClick('c1', record(6, true), false);
    expect(await kept('c1')).toBe(5);
    expect(await redis.ttl(clickKey('c1'))).toBeGreaterThan(30 * 86_400 - 60);
  });
});

describe('once-only marks on a Redis Cluster (one command per mark: marks hash to different slots)', () => {
  it('count each ticket and each click once, and a first click against its fingerprint', async () => {
    const cluster = await startRedisCluster(3);
    const client = connectRedis(cluster.url, { enableAutoPipelining: true });
    try {
      const a = new RedisCounters(client);
      const ids = Array.from({ length: 200 }, (_, i) => `bid-${i}`);
      const marks = await Promise.all(ids.flatMap((id) => [a.countOnce('imp', id), a.countOnce('imp', id)]));
      for (let i = 0; i < ids.length; i++) expect(marks.slice(i * 2, i * 2 + 2).filter(Boolean)).toHaveLength(1);
      const now = Date.now();
      const clicks = await Promise.all(
        ids.slice(0, 6).flatMap((id) => [a.countClick(id, 'fpC', now), a.countClick(id, 'fpC', now)]),
      );
      expect(clicks.filter((n) => n === undefined)).toHaveLength(6);
      expect(clicks.filter((n): n is number => n !== undefined).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6]);
      const record = {
        campaign_id: 1,
        creative_id: 2,
        advertiser_id: 3,
        publisher_id: 4,
        site_id: 5,
        zone_id: 6,
        ts: 7,
        invalid: false,
      };
      await Promise.all([
        a.saveClick('k1', record, false),
        a.saveClick('k2', record, false),
        a.saveClick('k1', { ...record, ts: 8 }, false),
      ]);
      expect(decodeClickRecord(await client.get(clickKey('k1')))?.ts).toBe(7);
    } finally {
      await client.quit();
      await cluster.stop();
    }
  }, 60_000);
});

describe('TurnBatch', () => {
  it('gives each call its own answer, splits a long turn, and fails a batch answered with the wrong count', async () => {
    const sizes: number[] = [];
    const batch = new TurnBatch<number, number>((xs) => {
      sizes.push(xs.length);
      return Promise.resolve(xs.map((x) => x * 2));
    }, 4);
    expect(await Promise.all([1, 2, 3, 4, 5, 6].map((x) => batch.add(x)))).toEqual([2, 4, 6, 8, 10, 12]);
    expect(sizes).toEqual([4, 2]);
    const short = new TurnBatch<number, number>((xs) => Promise.resolve(xs.slice(1)));
    const out = await Promise.allSettled([short.add(1), short.add(2)]);
    expect(out.map((r) => r.status)).toEqual(['rejected', 'rejected']);
  });
});
