import { Periodic } from '@adnet/runtime/periodic';
import type { EngineSlice, PushConfig } from '@adnet/schemas/config';
import type { Redis } from '@adnet/runtime/redis-connect';
import type { SupplyDeps } from '../demand/supply.ts';
import { PushSender } from '../push/push-sender.ts';
import type { PushPorts } from '../push/push-sender.ts';
import type { EngineStores } from './stores.ts';

/** The engine's periodic passes over its stores (the push sender and the journal's replay run their own). */
export interface EnginePasses {
  /** Spend held in this engine's slices, written to Redis. */
  spendFlush: Periodic;
  pacingTick: Periodic;
  /** The creatives' shared counts, read back for the rotation. */
  rotationRefresh: Periodic;
  /** The demand partners' counts and breaker states, for the admin's figures. */
  demandFlush: Periodic;
  /** Target-CPA campaigns' spend per zone, added to the shared counts. */
  zoneSpendFlush: Periodic;
}

export function startPasses(
  config: Pick<EngineSlice, 'pacingTickMs' | 'rotationRefreshMs'>,
  redis: Redis,
  { budget, pacer, rotation, zoneSpend }: EngineStores,
  { demand, onError }: { demand: SupplyDeps; onError: (what: string) => (err: unknown) => void },
): EnginePasses {
  const passes = {
    spendFlush: new Periodic({ intervalMs: 200, pass: () => budget.flush(), onError: onError('spend-flush') }),
    pacingTick: new Periodic({ intervalMs: config.pacingTickMs, pass: () => pacer.tick(), onError: onError('pacing') }),
    rotationRefresh: new Periodic({
      intervalMs: config.rotationRefreshMs,
      pass: () => rotation.refresh(),
      onError: onError('rotation'),
    }),
    demandFlush: new Periodic({
      intervalMs: 1_000,
      pass: () => demand.stats.flush(redis, demand.breaker),
      onError: onError('demand-stats'),
    }),
    zoneSpendFlush: new Periodic({ intervalMs: 1_000, pass: () => zoneSpend.flush(), onError: onError('zone-spend') }),
  } satisfies EnginePasses;
  for (const pass of Object.values(passes)) pass.start();
  return passes;
}

/** Push ads to the subscribers of push zones, each an auction as an /imp is (push/push-sender.ts). */
export function startPushSender(
  push: PushConfig,
  ports: PushPorts,
  {
    redis,
    vapid,
    onError,
  }: {
    redis: Redis;
    vapid: { publicKey: string; privateKey: string };
    onError: (what: string) => (err: unknown) => void;
  },
): PushSender {
  const sender = new PushSender({
    ctx: ports,
    redis,
    vapid,
    minIntervalHours: push.minIntervalHours,
    sendIntervalMs: push.sendIntervalMs,
    concurrency: push.sendConcurrency,
    caFile: push.caFile,
    onError: onError('push-send'),
  });
  sender.start();
  return sender;
}
