import { Probe, clientState, readingState, seconds } from '@adnet/runtime/probe';
import { allReady } from '@adnet/schemas/readiness';
import type { DependencyCheck, StatsFreshness } from '@adnet/schemas/readiness';
import type { ClickHouseClient } from '../clickhouse/open.ts';
import { eventBacklog, oldestUningestedAgeMs } from '../ingest/event-backlog.ts';
import type { EventBacklog } from '../ingest/event-backlog.ts';
import type { Redis } from '../storage/redis.ts';

/** Each dependency is asked this often... */
export const PROBE_INTERVAL_MS = 1_000;
/** ...and is hung when an answer is this late (a busy but live Redis answers a PING in milliseconds). */
export const PROBE_DEADLINE_MS = 2_000;

export interface Readiness {
  ok: boolean;
  /** The Redis client's connection status, or `hung` when connected but not answering. */
  redis: string;
  clickhouse?: 'ok' | 'unreachable';
  /** The event backlog as last read. */
  events?: EventBacklog;
  checks: DependencyCheck[];
}

interface IngestReading {
  backlog: EventBacklog;
  lagMs: number;
}

export interface HealthOptions {
  redis: Redis;
  clickhouse: ClickHouseClient | undefined;
  statsLagNoticeMs: number;
  /** Counts a failed ClickHouse check (metrics). */
  onClickHouseError?: () => void;
}

/**
 * The admin's dependencies, asked in the background (runtime/src/probe.ts), so `/readyz` and the statistics'
 * freshness are answered from what is known and never wait on a hung Redis or ClickHouse.
 */
export class AdminHealth {
  private readonly redisProbe: Probe<string>;
  private readonly clickhouseProbe: Probe<true> | undefined;
  /** How far ClickHouse lags the event stream (a Redis read: whichever process ingests). */
  private readonly ingestProbe: Probe<IngestReading>;

  constructor(private readonly o: HealthOptions) {
    const timing = { intervalMs: PROBE_INTERVAL_MS, deadlineMs: PROBE_DEADLINE_MS };
    this.redisProbe = new Probe({ ...timing, check: () => o.redis.ping() });
    const ch = o.clickhouse;
    this.clickhouseProbe =
      ch &&
      new Probe({
        ...timing,
        check: async () => {
          const r = await ch.ping();
          if (r.success) return true as const;
          o.onClickHouseError?.();
          throw r.error;
        },
      });
    this.ingestProbe = new Probe({
      ...timing,
      check: async () => {
        const [backlog, lagMs] = await Promise.all([eventBacklog(o.redis), oldestUningestedAgeMs(o.redis)]);
        return { backlog, lagMs };
      },
    });
  }

  /** Resolves when every probe has answered once, or at the deadline. */
  async start(): Promise<void> {
    await Promise.all([this.redisProbe.start(), this.clickhouseProbe?.start(), this.ingestProbe.start()]);
  }

  stop(): void {
    this.redisProbe.stop();
    this.clickhouseProbe?.stop();
    this.ingestProbe.stop();
  }

  checks(nowMs = Date.now()): DependencyCheck[] {
    const checks: DependencyCheck[] = [
      { name: 'redis', ...clientState(this.o.redis.status, this.redisProbe.reading(nowMs), 'PING', nowMs) },
    ];
    if (this.clickhouseProbe)
      checks.push({ name: 'clickhouse', ...readingState(this.clickhouseProbe.reading(nowMs), 'ping', nowMs) });
    checks.push(this.ingestCheck(this.ingestProbe, nowMs));
    return checks;
  }

  readiness(nowMs = Date.now()): Readiness {
    const checks = this.checks(nowMs);
    const redis = checks[0] as DependencyCheck;
    const clickhouse = checks.find((c) => c.name === 'clickhouse');
    const events = this.ingestProbe.lastAnswer?.value.backlog;
    return {
      ok: allReady(checks),
      redis: redis.state === 'hung' ? 'hung' : this.o.redis.status,
      ...(clickhouse ? { clickhouse: clickhouse.state === 'ok' ? 'ok' : 'unreachable' } : {}),
      ...(events ? { events } : {}),
      checks,
    };
  }

  freshness(nowMs = Date.now()): StatsFreshness {
    const threshold_seconds = Math.round(this.o.statsLagNoticeMs / 1000);
    const reading = this.ingestProbe.reading(nowMs);
    const last = this.ingestProbe.lastAnswer;
    const measured_at = last ? new Date(last.atMs).toISOString() : null;
    if (reading.kind !== 'answered') return { state: 'unknown', lag_seconds: null, threshold_seconds, measured_at };
    const { lagMs } = reading.value;
    return {
      state: lagMs > this.o.statsLagNoticeMs ? 'behind' : 'current',
      lag_seconds: Math.floor(lagMs / 1000),
      threshold_seconds,
      measured_at,
    };
  }

  private ingestCheck(probe: Probe<IngestReading>, nowMs: number): DependencyCheck {
    const reading = probe.reading(nowMs);
    if (reading.kind !== 'answered')
      return { name: 'ingester', ...readingState(reading, 'reading the event backlog', nowMs) };
    const { lagMs, backlog } = reading.value;
    const waiting = `${backlog.lag} entries undelivered, ${backlog.pending} pending`;
    if (lagMs > this.o.statsLagNoticeMs) {
      return {
        name: 'ingester',
        state: 'behind',
        detail: `the oldest event not yet in ClickHouse is ${seconds(lagMs)} old (over ${seconds(this.o.statsLagNoticeMs)}); ${waiting}`,
      };
    }
    return {
      name: 'ingester',
      state: 'ok',
      detail: `statistics ${seconds(lagMs)} behind the event stream; ${waiting}`,
    };
  }
}
