import type { BidResponse } from '@adnet/schemas/openrtb';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { postBid } from '@adnet/test-support/engine';
import { spawnEngine, streamEvents } from '@adnet/test-support/engine-process';
import { World, bannerRequest } from '@adnet/test-support/world';

const fx = useTestApp();

beforeAll(async () => {
  const world = await World.create(fx.app);
  await world.partner(['127.0.0.1'], 100_000);
  const adv = await world.advertiser(10_000_000);
  await world.campaign(adv, { geo_include: ['us'], languages: ['en'], daily_budget_usd: 10_000, bid_usd: 2 });
});

describe('SIGTERM on an engine under load', () => {
  it('stops accepting, answers what is in flight, and every answered bid keeps its event', async () => {
    // Events are flushed every 10 s: what the engine holds at SIGTERM must come from its shutdown flush.
    const engine = await spawnEngine({ REDIS_URL: fx.redis.url, EVENT_FLUSH_MS: '10000', SHUTDOWN_GRACE_MS: '10000' });
    const answered = new Set<string>();
    // Until the first budget slice is in: the first bid answered counts too.
    for (let i = 0; i < 200 && answered.size === 0; i++) {
      const r = await postBid(engine.base, bannerRequest());
      if (r.status === 200) answered.add((r.body as unknown as BidResponse).seatbid[0]?.bid[0]?.id ?? 'missing');
      else await new Promise((res) => setTimeout(res, 25));
    }

    const statuses = new Map<number, number>();
    let refused = 0;
    let stopping = false;
    const loop = async () => {
      for (;;) {
        try {
          const r = await postBid(engine.base, bannerRequest());
          statuses.set(r.status, (statuses.get(r.status) ?? 0) + 1);
          if (r.status === 200) answered.add((r.body as unknown as BidResponse).seatbid[0]?.bid[0]?.id ?? 'missing');
        } catch {
          // Connection refused or closed: only once the engine was told to stop.
          if (!stopping) throw new Error('engine failed before SIGTERM');
          refused++;
          if (refused > 200) return;
          await new Promise((r) => setTimeout(r, 5));
        }
        if (stopping && engine.child.exitCode !== null) return;
      }
    };
    const loops = Array.from({ length: 16 }, loop);
    await new Promise((r) => setTimeout(r, 1_500));
    const beforeStop = answered.size;
    stopping = true;
    engine.child.kill('SIGTERM');
    expect(await engine.exit).toBe(0);
    await Promise.all(loops);

    expect(beforeStop).toBeGreaterThan(100);
    // Only bids and the drain's refusals: nothing failed inside.
    expect([...statuses.keys()].filter((s) => s !== 200 && s !== 204 && s !== 503)).toEqual([]);
    const bidEvents = (await streamEvents(fx.redis.url)).filter((e) => e.type === 'bid');
    const withEvent = new Set(bidEvents.map((e) => e.bid_id));
    expect([...answered].filter((id) => !withEvent.has(id))).toEqual([]);
    // Each bid event belongs to an answer the partner got.
    expect(bidEvents.length).toBe(answered.size);
    expect(engine.output()).toMatch(/"event":"engine.stopped".*"dropped":0/);
  }, 60_000);
});
