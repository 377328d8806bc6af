import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

const fx = useTestApp();
let engine: TestEngine;

beforeAll(async () => {
  engine = await startEngine(fx.redis.url);
});
afterAll(async () => {
  await engine.stop();
});

describe('config mirror', () => {
  it('takes a fresh snapshot when Redis lost the log it was following', async () => {
    const world = await World.create(fx.app);
    const adv = await world.advertiser(1_000);
    const { campaign: first } = await world.campaign(adv);
    await eventually(() => engine.engine.mirror.index?.campaigns.has(first.id) ?? false);

    // Redis comes back empty (no persistence, or a restore from an older dump): the old log is gone.
    await fx.app.svc.redis.flushall();
    const again = await World.create(fx.app);
    const adv2 = await again.advertiser(1_000);
    const { campaign: second } = await again.campaign(adv2, { name: 'After the loss' });
    await eventually(() => engine.engine.mirror.index?.campaigns.get(second.id)?.name === 'After the loss');
    // Ids restarted too: what the engine holds is exactly the new state, nothing left from before.
    expect([...(engine.engine.mirror.index?.campaigns.keys() ?? [])]).toEqual([second.id]);
  });
});
