import type { EventsConfig } from '@adnet/schemas/config';
import type { Redis } from '@adnet/runtime/redis-connect';
import type { Logger } from 'pino';
import { BudgetSlices } from '../budget/budget-slices.ts';
import { EventBatcher } from '../events/event-batcher.ts';
import type { InFlight } from '../http/adapt.ts';
import { campaignCandidates } from '../index/engine-index.ts';
import type { EngineMetrics } from '../observability/engine-metrics.ts';
import { Pacer } from '../pacing/pacer.ts';
import { CreativeRotation } from '../rotation/creative-rotation.ts';
import { MovedMarks } from '../store/moved.ts';
import { ZoneSpendCounts } from '../store/zone-spend.ts';
import { ConfigMirror } from '../sync/config-mirror.ts';

/** The engine's state kept beside Redis: the event writer, budget slices, the index's mirror and the workers that read it. */
export interface EngineStores {
  events: EventBatcher;
  /** The campaigns whose spend this engine changed, for every engine's pacer (direct charges and win spend alike). */
  spentMarks: MovedMarks;
  budget: BudgetSlices;
  pacer: Pacer;
  rotation: CreativeRotation;
  /** Target-CPA campaigns' spend per zone, for the admin's controller. */
  zoneSpend: ZoneSpendCounts;
  mirror: ConfigMirror;
}

export function buildStores(o: {
  events: EventsConfig;
  budgetSliceCents: number;
  engineId: string;
  redis: Redis;
  subscriber: Redis;
  log: Logger;
  metrics: EngineMetrics;
  inFlight: InFlight;
  onError: (what: string) => (err: unknown) => void;
}): EngineStores {
  const { redis, log, metrics, onError } = o;
  const events = new EventBatcher({
    redis,
    ...o.events,
    onError: onError('events'),
  });
  const spentMarks = new MovedMarks(redis, 'spent');
  const budget = new BudgetSlices({
    redis,
    engineId: o.engineId,
    spentMarks,
    sliceCents: o.budgetSliceCents,
    onError: onError('budget'),
    onRebase: (pool, result) => metrics.reservation(pool, result),
  });
  const pacer = new Pacer(redis, () => mirror.index);
  const rotation = new CreativeRotation({ redis, index: () => mirror.index });
  const mirror = new ConfigMirror({
    redis,
    subscriber: o.subscriber,
    onError: onError('config-sync'),
    onIndex: (index, delta) => {
      rotation.indexChanged(index, delta);
      // New pace handles (all of them after a full rebuild): carry the campaigns' current rates over.
      pacer.indexChanged(index, delta);
      // A change costs the work of what it changed: only a full rebuild walks every campaign.
      if (delta.full) {
        log.info(
          { event: 'index.loaded', seq: index.seq, candidates: index.candidateCount, partners: index.partners.length },
          'index loaded',
        );
        budget.prewarm(new Set([...index.slots.values()].flat()));
        return;
      }
      log.info(
        { event: 'index.loaded', seq: index.seq, candidates: index.candidateCount, campaigns: delta.campaigns.size },
        'index updated',
      );
      for (const id of delta.campaigns) budget.prewarm(campaignCandidates(index, id));
    },
  });
  metrics.watch({
    eventBacklog: () => events.backlog,
    eventsDropped: () => events.dropped,
    eventsWritten: () => events.written,
    inFlight: () => o.inFlight.count,
    indexChangeTime: () => (mirror.index ? Number(mirror.index.seq.split('-')[0]) / 1000 : undefined),
    indexCandidates: () => mirror.index?.candidateCount,
  });
  const zoneSpend = new ZoneSpendCounts(redis, (id) => mirror.index?.campaigns.get(id));
  return { events, spentMarks, budget, pacer, rotation, zoneSpend, mirror };
}
