import { NO_BID_REASONS } from '@adnet/schemas/events';
import type { EngineEvent } from '@adnet/schemas/events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { collectProcessMetrics, serviceRegistry } from '@adnet/runtime/prometheus';
import { Counter, Gauge } from 'prom-client';
import type { Counter as CounterT, Registry } from 'prom-client';
import { HotCounter, HotHistogram } from './hot-path-metrics.ts';

/** What the metrics read from the running engine when Prometheus scrapes. */
export interface EngineGauges {
  eventBacklog: () => number;
  eventsDropped: () => number;
  eventsWritten: () => number;
  inFlight: () => number;
  /** When the newest config change in the loaded index was written (its change-log id is a time). */
  indexChangeTime: () => number | undefined;
  indexCandidates: () => number | undefined;
}

// Latency buckets around the 200 ms auction budget: most answers take well under a millisecond.
const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.2, 0.5, 1];

/**
 * One set per engine (tests run several engines in one process). What every
 * request touches is counted in plain numbers (hot-path-metrics.ts); the rest,
 * touched rarely or read at scrape time, goes through prom-client.
 */
export class EngineMetrics {
  readonly registry: Registry;
  private readonly common: Record<string, string>;
  readonly requests = new HotCounter(
    'adnet_engine_http_requests_total',
    'Requests answered, by route pattern and status',
  );
  readonly latency = new HotHistogram(
    'adnet_engine_http_request_duration_seconds',
    'Time from request to answer inside the engine, by route pattern',
    LATENCY_BUCKETS,
  );
  readonly auction = new HotHistogram(
    'adnet_engine_auction_duration_seconds',
    'Time one OpenRTB request spends in parsing and auctions',
    LATENCY_BUCKETS,
  );
  readonly events = new HotCounter(
    'adnet_engine_events_total',
    'Events the engine emitted: bids, no-bids by reason (the filter that removed the most candidates), wins, impressions, clicks (reason: the fraud rule)',
  );
  private readonly reservations: CounterT<'pool' | 'result'>;
  private readonly errors: CounterT<'what'>;
  private readonly journaledRequests: CounterT<'route' | 'why'>;
  private readonly hbWins: CounterT<never>;

  constructor(engineId: string) {
    this.common = { engine: engineId };
    this.registry = serviceRegistry(this.common);
    const registers = [this.registry];
    this.reservations = new Counter({
      name: 'adnet_engine_budget_reservations_total',
      help: 'Budget slice re-bases against Redis, by pool and result',
      labelNames: ['pool', 'result'],
      registers,
    });
    this.errors = new Counter({
      name: 'adnet_engine_errors_total',
      help: 'Errors by component (redis, config-sync, events, budget, a route)',
      labelNames: ['what'],
      registers,
    });
    this.journaledRequests = new Counter({
      name: 'adnet_engine_journaled_requests_total',
      help: 'Tracking requests answered without Redis and journaled to disk (why: away, late, failed; full: not kept)',
      labelNames: ['route', 'why'],
      registers,
    });
    this.hbWins = new Counter({
      name: 'adnet_engine_hb_wins_total',
      help: "Prebid.js win notices for our header bids (POST /hb/bid), each ad's first only: informational, never charged",
      registers,
    });
    // Every no-bid reason is a series from the start, so a dashboard sees a reason at zero rather than no data.
    for (const reason of NO_BID_REASONS) this.events.inc(`nobid ${reason}`, () => ({ type: 'nobid', reason }), 0);
  }

  /** Gauges read the running engine at scrape time. */
  watch(gauges: EngineGauges): void {
    const registers = [this.registry];
    const gauge = (name: string, help: string, read: () => number | undefined) =>
      new Gauge({
        name,
        help,
        registers,
        collect() {
          const v = read();
          if (v !== undefined) this.set(v);
        },
      });
    gauge('adnet_engine_event_backlog', 'Events held in memory, not yet in the Redis stream', gauges.eventBacklog);
    gauge(
      'adnet_engine_events_dropped',
      'Events dropped because the buffer was full (Redis unreachable for long)',
      gauges.eventsDropped,
    );
    gauge('adnet_engine_events_written', 'Events written to the Redis stream since start', gauges.eventsWritten);
    gauge('adnet_engine_requests_in_flight', 'Requests being answered', gauges.inFlight);
    gauge(
      'adnet_engine_index_change_time_seconds',
      'Unix time of the newest config change the loaded index holds',
      gauges.indexChangeTime,
    );
    gauge('adnet_engine_index_candidates', 'Creatives the loaded index can serve', gauges.indexCandidates);
  }

  /** CPU, memory, event-loop lag and GC of this process: only where it serves metrics (tests run many engines in one process). */
  withProcessMetrics(loopDelayResolutionMs: number): void {
    collectProcessMetrics(this.registry, 'engine');
    // The default lag metrics sample every 10 ms; this one every METRICS_LOOP_DELAY_RESOLUTION_MS, for stalls
    // of a few milliseconds (what a config change may cost, bench:config). Read and reset at each scrape, so
    // each value covers one interval.
    const delay = monitorEventLoopDelay({ resolution: loopDelayResolutionMs });
    delay.enable();
    new Gauge({
      name: 'adnet_engine_event_loop_delay_seconds',
      help: `Event-loop delay since the last scrape, sampled every ${loopDelayResolutionMs} ms, by stat (max, p99)`,
      labelNames: ['stat'],
      registers: [this.registry],
      collect() {
        this.set({ stat: 'max' }, delay.count ? delay.max / 1e9 : 0);
        this.set({ stat: 'p99' }, delay.count ? delay.percentile(99) / 1e9 : 0);
        delay.reset();
      },
    });
  }

  /** The Prometheus text exposition of everything. */
  async text(): Promise<string> {
    const hot = [this.requests, this.latency, this.auction, this.events].map((m) => m.render(this.common)).join('');
    return hot + (await this.registry.metrics());
  }

  request(route: string, status: number, seconds: number): void {
    // Routes are patterns and statuses a short list: the key space stays small.
    const key = route + status;
    this.requests.inc(key, () => ({ route, status: String(status) }));
    this.latency.observe(route, () => ({ route }), seconds);
  }

  auctionTime(seconds: number): void {
    this.auction.observe('', () => ({}), seconds);
  }

  event(e: EngineEvent): void {
    const raw = 'reason' in e ? e.reason : undefined;
    if (raw === undefined) return this.events.inc(e.type, () => ({ type: e.type, reason: '' }));
    // Tracking events carry free text after a colon (a player's error code): keep the label set bounded.
    const reason = raw.includes(':') ? raw.slice(0, raw.indexOf(':')) : raw;
    this.events.inc(`${e.type} ${reason}`, () => ({ type: e.type, reason }));
  }

  reservation(pool: 'campaign' | 'advertiser', result: 'granted' | 'dry' | 'error'): void {
    this.reservations.labels(pool, result).inc();
  }

  error(what: string): void {
    this.errors.labels(what).inc();
  }

  journaled(route: string, why: string): void {
    this.journaledRequests.labels(route, why).inc();
  }

  hbWon(): void {
    this.hbWins.inc();
  }
}
