import { balanceKey } from '@adnet/schemas/redis-keys';
import { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RedisDirectCharger } from '../src/budget/direct-charges.ts';
import { RedisFrequencyStore } from '../src/frequency/redis-frequency-store.ts';
import { RedisCounters } from '../src/store/counters.ts';
import { useTestRedis } from './support/test-redis.ts';

// The engine's client auto-pipelines (engine.ts). The request paths' scripts, already one per request or one per
// event-loop turn, must go out as they are asked for, not in a pipeline of their own a tick later; the
// background passes' plain commands stay auto-pipelined. ioredis builds each auto-pipeline with `pipeline()`.
const redis = useTestRedis();
let client: Redis;
beforeEach(async () => {
  client = new Redis(redis.server.url, { enableAutoPipelining: true });
  await client.flushall();
});
afterEach(async () => {
  await client.quit();
});

describe('the request paths skip ioredis auto-pipelining', () => {
  it('beacon marks, clicks, click records, direct charges and frequency counts build no pipeline; a plain read still does', async () => {
    const counters = new RedisCounters(client);
    const charger = new RedisDirectCharger(client);
    const caps = new RedisFrequencyStore(client, 'engine-a');
    await client.set(balanceKey(3), '50');
    const pipelines = vi.spyOn(client, 'pipeline');
    const now = Date.now();
    const marks = await Promise.all([
      counters.countOnce('imp', 'bid-1'),
      counters.countOnce('imp', 'bid-1'),
      counters.countOnce('imp', 'bid-2'),
    ]);
    const clicks = await Promise.all([
      counters.countClick('bid-1', 'fp-1', now),
      counters.countClick('bid-2', 'fp-1', now),
    ]);
    await counters.saveClick(
      'click-1',
      {
        campaign_id: 7,
        creative_id: 1,
        advertiser_id: 3,
        publisher_id: 0,
        site_id: 0,
        zone_id: 0,
        ts: now,
        invalid: false,
      },
      true,
    );
    const charged = await charger.charge({
      campaignId: 7,
      advertiserId: 3,
      dailyBudgetCents: 100,
      totalBudgetCents: -1,
      bidType: 'cpc',
      day: '2026-11-24',
      nano: 1_000_000,
      at: now,
      reason: 'click spend',
    });
    await caps.count('user-1', 7, 'engine-a', now, 3_600_000);
    expect(pipelines).not.toHaveBeenCalled();
    // The work was done, once each.
    expect(marks).toEqual([true, false, true]);
    expect(clicks).toEqual([1, 2]);
    expect(charged).toBe('charged');
    expect((await caps.read('user-1')).get(7)?.total).toBe(1);
    // What the spy sees is ioredis's auto-pipelining, still on for everything else (the read above was one).
    pipelines.mockClear();
    await client.get('anything');
    expect(pipelines).toHaveBeenCalledTimes(1);
  });

  it('changes only the client it is given: another client, and one made later, still auto-pipeline those scripts', () => {
    const other = new Redis(redis.server.url, { enableAutoPipelining: true, lazyConnect: true });
    new RedisCounters(client);
    const later = new Redis(redis.server.url, { enableAutoPipelining: true, lazyConnect: true });
    expect(client.options.autoPipeliningIgnoredCommands).toContain('ctrCountOnce');
    expect(other.options.autoPipeliningIgnoredCommands).not.toContain('ctrCountOnce');
    expect(later.options.autoPipeliningIgnoredCommands).not.toContain('ctrCountOnce');
    other.disconnect();
    later.disconnect();
  });
});
