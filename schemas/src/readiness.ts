import { z } from 'zod';

/**
 * A dependency's state as `/readyz` reports it: `down` (refused, closed or failing), `hung` (connected but its
 * answer is overdue: a Redis stopped with SIGSTOP keeps its TCP connection open), `behind` (answering, but
 * what it feeds lags). Readiness fails on `down` and `hung`; `behind` is reported without failing it.
 */
export const DEPENDENCY_STATES = ['ok', 'down', 'hung', 'behind'] as const;
export type DependencyState = (typeof DEPENDENCY_STATES)[number];

export const dependencyCheckSchema = z.object({
  name: z.string(),
  state: z.enum(DEPENDENCY_STATES),
  detail: z.string(),
});
export type DependencyCheck = z.infer<typeof dependencyCheckSchema>;

/** Ready unless a check is down or hung. */
export const allReady = (checks: readonly DependencyCheck[]): boolean =>
  checks.every((c) => c.state === 'ok' || c.state === 'behind');

/**
 * How far the statistics lag the event stream (`GET /api/stats/freshness`), from the admin's last reading of the
 * stream, kept by a periodic probe: `current`, `behind` (the oldest event not yet in ClickHouse is older than
 * `threshold_seconds`), or `unknown` (the stream could not be read lately).
 */
export const statsFreshnessSchema = z.object({
  state: z.enum(['current', 'behind', 'unknown']),
  /** Age of the oldest event not yet in ClickHouse, in seconds; 0 when every event is in; null when unknown. */
  lag_seconds: z.number().int().min(0).nullable(),
  threshold_seconds: z.number().int().positive(),
  /** When the stream was last read (ISO 8601); null when never. */
  measured_at: z.string().nullable(),
});
export type StatsFreshness = z.infer<typeof statsFreshnessSchema>;

/**
 * What every `/readyz` answers (200 when `ok`, else 503), beside the fields each process adds (the admin's
 * `redis`, `clickhouse`, `events`; an engine's `engine`, `index_seq`, ...). An engine in front of the admin reads
 * the admin's answer through this.
 */
export const readinessSchema = z.looseObject({
  ok: z.boolean(),
  checks: z.array(dependencyCheckSchema),
});
export type ReadinessAnswer = z.infer<typeof readinessSchema>;
