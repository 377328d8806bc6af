import { eventBacklog } from '../ingest/event-backlog.ts';
import type { EventBacklog } from '../ingest/event-backlog.ts';
import type { Services } from '../services.ts';

export interface Readiness {
  ok: boolean;
  redis: string;
  clickhouse?: 'ok' | 'unreachable';
  events?: EventBacklog;
}

/** Ready when Redis answers and, where this process reads statistics, ClickHouse does too. */
export async function readiness(svc: Services): Promise<Readiness> {
  const redisOk = svc.redis.status === 'ready';
  const clickhouse = svc.clickhouse ? ((await svc.clickhouse.ping().catch(() => ({ success: false }))).success ? 'ok' : 'unreachable') : undefined;
  if (clickhouse === 'unreachable') svc.metrics.error('clickhouse');
  const events = redisOk ? await eventBacklog(svc.redis).catch(() => undefined) : undefined;
  return { ok: redisOk && clickhouse !== 'unreachable', redis: svc.redis.status, ...(clickhouse ? { clickhouse } : {}), ...(events ? { events } : {}) };
}
