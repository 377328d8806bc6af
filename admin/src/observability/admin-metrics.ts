import { collectProcessMetrics, serviceRegistry } from '@adnet/runtime/prometheus';
import { Counter, Gauge, Histogram } from 'prom-client';
import type { Counter as CounterT, Histogram as HistogramT, Registry } from 'prom-client';

/** Read from Redis when Prometheus scrapes (never on a request path). */
export interface AdminGauges {
  /** The event stream: entries held, entries no ingester has read yet, entries read but not yet in ClickHouse. */
  eventStream: () => Promise<{ length: number; lag: number; pending: number }>;
  /** Outgoing postback attempts scheduled (due or later). */
  postbackQueue: () => Promise<number>;
  /** This process's ingester, when it runs one. */
  ingester?: () => { inserted: number; batches: number; failures: number; deadLetters: number; refusedEvents: number };
  /** Errors of this process's main Redis connection. */
  redisErrors?: () => number;
  /** This process's postback worker, when it runs one. */
  postbacks?: () => { ok: number; retry: number; failed: number };
  /** Email notices waiting to be sent (due or retrying), and this process's mail worker when it runs one. */
  mailQueue?: () => Promise<number>;
  mail?: () => { sent: number; retried: number; givenUp: number };
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

/**
 * A route label with bounded values: ids become `:id`, tRPC calls are named by
 * their procedures, media files collapse; anything unmatched is `other`.
 */
export function routeLabel(path: string, status: number): string {
  if (path.startsWith('/trpc/')) {
    const procs = path.slice('/trpc/'.length);
    // A batch names several procedures; they are the caller's choice, so only well-formed names count.
    return /^[a-zA-Z.,]{1,200}$/.test(procs) ? `/trpc/${procs.includes(',') ? '(batch)' : procs}` : '/trpc/other';
  }
  if (status === 404) return 'other';
  if (path.startsWith('/media/')) return '/media/:file';
  // The cabinet's own pages and hashed assets: one label, whatever the build or the deep link.
  if (path === '/cabinet' || path.startsWith('/cabinet/')) return '/cabinet';
  if (path.startsWith('/video/sample/')) return '/video/sample/:file';
  const label = path.replace(/\/\d+(?=\/|$)/g, '/:id');
  return /^[a-z0-9/:._-]{1,100}$/i.test(label) ? label : 'other';
}

/** Counts kept by the components themselves, exposed as counters at scrape time. */
function readCounter(name: string, help: string, registers: Registry[], read: () => number): void {
  new Counter({
    name,
    help,
    registers,
    collect() {
      this.reset();
      this.inc(read());
    },
  });
}

export class AdminMetrics {
  readonly registry = serviceRegistry();
  private readonly requests: CounterT<'route' | 'status'>;
  private readonly latency: HistogramT<'route'>;
  private readonly errors: CounterT<'what'>;

  constructor() {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'adnet_admin_http_requests_total',
      help: 'Requests answered, by route and status',
      labelNames: ['route', 'status'],
      registers,
    });
    this.latency = new Histogram({
      name: 'adnet_admin_http_request_duration_seconds',
      help: 'Request time by route',
      labelNames: ['route'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.errors = new Counter({
      name: 'adnet_admin_errors_total',
      help: 'Errors by component: redis, clickhouse, request',
      labelNames: ['what'],
      registers,
    });
  }

  /** Gauges read at scrape time, and the process's own (CPU, memory, event-loop lag, GC). */
  watch(gauges: AdminGauges): void {
    const registers = [this.registry];
    collectProcessMetrics(this.registry, 'admin');
    new Gauge({
      name: 'adnet_admin_event_stream',
      help: 'Event stream entries: length (held), lag (not yet read by an ingester), pending (read, not yet in ClickHouse)',
      labelNames: ['measure'],
      registers,
      async collect() {
        const s = await gauges.eventStream();
        this.set({ measure: 'length' }, s.length);
        this.set({ measure: 'lag' }, s.lag);
        this.set({ measure: 'pending' }, s.pending);
      },
    });
    new Gauge({
      name: 'adnet_admin_postback_queue',
      help: 'Outgoing postback attempts waiting in the queue',
      registers,
      async collect() {
        this.set(await gauges.postbackQueue());
      },
    });
    const { ingester, postbacks, redisErrors } = gauges;
    if (redisErrors)
      readCounter(
        'adnet_admin_redis_errors_total',
        'Errors of the Redis connection (it reconnects by itself)',
        registers,
        redisErrors,
      );
    if (ingester) {
      readCounter(
        'adnet_admin_ingested_events_total',
        'Events this ingester wrote to ClickHouse',
        registers,
        () => ingester().inserted,
      );
      readCounter(
        'adnet_admin_ingest_batches_total',
        'Batches this ingester wrote to ClickHouse',
        registers,
        () => ingester().batches,
      );
      readCounter(
        'adnet_admin_ingest_failures_total',
        'Failed ingest rounds and ClickHouse inserts (the batch is retried)',
        registers,
        () => ingester().failures,
      );
      readCounter(
        'adnet_admin_ingest_dead_letters_total',
        'Dead letters written to events:dead: stream entries that could not become rows, or the events of an entry the events table refuses',
        registers,
        () => ingester().deadLetters,
      );
      readCounter(
        'adnet_admin_ingest_refused_events_total',
        'Events the events table refuses (by the row builder or ClickHouse), moved to the dead letters one by one',
        registers,
        () => ingester().refusedEvents,
      );
    }
    const { mailQueue, mail } = gauges;
    if (mailQueue) {
      new Gauge({
        name: 'adnet_admin_mail_queue',
        help: 'Email notices waiting to be sent, due or retrying',
        registers,
        async collect() {
          this.set(await mailQueue());
        },
      });
    }
    if (mail) {
      readCounter('adnet_admin_mail_sent_total', 'Email notices this process sent', registers, () => mail().sent);
      readCounter(
        'adnet_admin_mail_retried_total',
        'Email attempts that failed and were scheduled again',
        registers,
        () => mail().retried,
      );
      readCounter(
        'adnet_admin_mail_given_up_total',
        'Email notices given up after MAIL_MAX_ATTEMPTS',
        registers,
        () => mail().givenUp,
      );
    }
    if (postbacks) {
      for (const result of ['ok', 'retry', 'failed'] as const) {
        readCounter(
          `adnet_admin_postback_attempts_${result}_total`,
          `Outgoing postback attempts: ${result === 'ok' ? 'answered 2xx' : result === 'retry' ? 'failed, another is scheduled' : 'the last one failed (postback_failed)'}`,
          registers,
          () => postbacks()[result],
        );
      }
    }
  }

  request(path: string, status: number, seconds: number): void {
    const route = routeLabel(path, status);
    this.requests.labels(route, String(status)).inc();
    this.latency.labels(route).observe(seconds);
  }

  error(what: string): void {
    this.errors.labels(what).inc();
  }
}
