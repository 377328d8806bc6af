import type { Probe } from '@adnet/runtime/probe';
import type { Logger } from 'pino';
import type { InFlight } from '../http/adapt.ts';
import type { EngineJournal } from '../journal/journal-wiring.ts';
import type { PushSender } from '../push/push-sender.ts';
import type { EnginePasses } from './passes.ts';
import type { SupplySide } from './ports.ts';
import type { EngineRedis } from './redis.ts';
import type { EngineStores } from './stores.ts';

/** What stopping reaches: the engine's parts, and its two listeners to close (uWS stays in engine.ts). */
export interface Stopping {
  shutdownGraceMs: number;
  log: Logger;
  closePublic(): void;
  closeOps(): void;
  redisProbe: Probe<unknown>;
  inFlight: InFlight;
  journal: EngineJournal;
  stores: EngineStores;
  passes: EnginePasses;
  supply: SupplySide;
  pushSender: PushSender;
  clients: EngineRedis;
  onError: (what: string) => (err: unknown) => void;
}

export interface StopStep {
  name: string;
  /** Why the step stands where it does in the order. */
  why: string;
  run(s: Stopping): void | Promise<void>;
}

/** Spend is money: this many flushes, 250 ms apart, carry it through a short Redis outage (a failover). */
const SPEND_FLUSH_ATTEMPTS = 20;

/** The engine's stop, in order: each step after every step whose work it ends or writes out. */
export const STOP_STEPS: readonly StopStep[] = [
  {
    name: 'public listener',
    why: 'first: once stopping begins no new connection is taken; the requests already in are answered below',
    run: (s) => s.closePublic(),
  },
  {
    name: 'readiness probe',
    why: 'its pings would run on into the closing of the Redis connections at the end; readiness keeps the last reading',
    run: (s) => s.redisProbe.stop(),
  },
  {
    name: 'drain',
    why: 'the requests in flight are answered (for at most SHUTDOWN_GRACE_MS) before anything they count, charge or emit through is stopped',
    run: async ({ inFlight, log, shutdownGraceMs }) => {
      inFlight.draining = true;
      log.info({ event: 'engine.draining', inFlight: inFlight.count }, 'engine draining');
      await Promise.race([inFlight.idle(), new Promise((r) => setTimeout(r, shutdownGraceMs).unref())]);
      inFlight.closed = true;
    },
  },
  {
    name: 'journal',
    why: 'once no request can add to it; requests answered while Redis was away stay on disk for the next start (or another engine) to replay',
    run: (s) => s.journal.stop(),
  },
  {
    name: 'config mirror',
    why: 'no request serves from a new index any more; the workers below keep the one they have',
    run: (s) => s.stores.mirror.stop(),
  },
  {
    name: 'push sender',
    why: 'its deliveries spend, count and emit like requests: it hands back the subscribers it has not begun before spend and events are written',
    run: (s) => s.pushSender.stop(),
  },
  { name: 'spend flush pass', why: 'the last flushes below then run alone', run: (s) => s.passes.spendFlush.stop() },
  {
    name: 'rotation refresh pass',
    why: 'the last refresh below then runs alone',
    run: (s) => s.passes.rotationRefresh.stop(),
  },
  {
    name: 'demand stats pass',
    why: 'the last flush of the demand counts below then runs alone',
    run: (s) => s.passes.demandFlush.stop(),
  },
  {
    name: 'demand stats',
    why: 'after the last request and push delivery that could add to the counts of the partners',
    run: ({ supply, clients, onError }) =>
      supply.deps.stats.flush(clients.redis, supply.deps.breaker).catch(onError('demand-stats')),
  },
  {
    name: 'demand notices',
    why: 'notices on the wire end before their sockets do: one cut off mid-answer would be retried, and sent twice',
    run: (s) => s.supply.deps.notifier.close(2_500),
  },
  { name: 'demand connections', why: 'after the notices they carry', run: (s) => s.supply.dsp.close() },
  {
    name: 'pacing pass',
    why: 'while Redis is still connected, so a tick in progress ends with its reads',
    run: (s) => s.passes.pacingTick.stop(),
  },
  {
    name: 'zone spend pass',
    why: 'the last flush of the zone spend below then runs alone',
    run: (s) => s.passes.zoneSpendFlush.stop(),
  },
  {
    name: 'zone spend',
    why: "the last spend of this engine on target-CPA campaigns' zones joins the shared counts, once nothing serves",
    run: ({ stores, onError }) => stores.zoneSpend.flush().catch(onError('zone-spend')),
  },
  {
    name: 'rotation counts',
    why: 'the last counts of this engine join the shared ones, once nothing serves any more',
    run: ({ stores, onError }) => stores.rotation.refresh().catch(onError('rotation')),
  },
  {
    name: 'spend',
    why: 'after everything that spends; kept trying through a short Redis outage (a failover) before giving up',
    run: async ({ stores: { budget }, log, onError }) => {
      for (let attempt = 0; attempt < SPEND_FLUSH_ATTEMPTS; attempt++) {
        await budget.flush().catch(onError('spend-flush'));
        if (budget.unsentSpend === 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      if (budget.unsentSpend > 0)
        log.error(
          { event: 'budget.unsent_spend', batches: budget.unsentSpend },
          'spend could not be written to Redis before exit',
        );
    },
  },
  {
    name: 'budget release',
    why: 'the holds go back once the spend they cover is written, so other engines can use the budget at once',
    run: ({ stores, onError }) => stores.budget.releaseAll().catch(onError('budget-release')),
  },
  {
    name: 'events',
    why: 'after every step that can still emit (requests, push deliveries, demand counts)',
    run: (s) => s.stores.events.stop(),
  },
  {
    name: 'redis connections',
    why: 'every write above goes through them',
    run: async ({ clients }) => {
      await Promise.all([
        clients.redis.quit().catch(() => undefined),
        clients.subscriber.quit().catch(() => undefined),
      ]);
    },
  },
  {
    name: 'operators listener',
    why: 'last: metrics and probes answer through the whole stop',
    run: (s) => s.closeOps(),
  },
];

export async function stopInOrder(steps: readonly StopStep[], s: Stopping): Promise<void> {
  for (const step of steps) await step.run(s);
}
