import type { Probe } from '@adnet/runtime/probe';
import type { Redis } from '@adnet/runtime/redis-connect';
import type { EventBatcher } from '../events/event-batcher.ts';
import { json } from '../http/adapt.ts';
import type { RouteHandler } from '../http/adapt.ts';
import { adminReadiness, publicReadiness } from '../http/public-readiness.ts';
import type { EngineJournal } from '../journal/journal-wiring.ts';
import { allReady, engineChecks } from '../observability/readiness.ts';
import type { ConfigMirror } from '../sync/config-mirror.ts';

export interface EngineHealth {
  /** Alive: answered whatever the dependencies do. */
  healthz: RouteHandler;
  /** Ready: 200 or 503 with the checks. */
  readyz: RouteHandler;
  /** The base URL's /readyz in the single-URL quickstart: the admin's, asked with a deadline, beside this engine's own (http/public-readiness.ts). */
  publicReadyz(upstream: string): RouteHandler;
}

/**
 * Not ready before the index is loaded: a load balancer must not send bids to an engine that would answer 503.
 * Not ready while Redis is down or hung either; a mirror or event writer behind is named without failing it.
 */
export function engineHealth(o: {
  engineId: string;
  redis: Redis;
  redisProbe: Probe<unknown>;
  mirror: ConfigMirror;
  events: EventBatcher;
  journal: EngineJournal;
}): EngineHealth {
  const { engineId: id, redis, mirror, events } = o;
  const readiness = () => {
    const checks = engineChecks({
      redisStatus: () => redis.status,
      redisProbe: o.redisProbe,
      mirror,
      events,
      journal: o.journal,
    });
    const redisCheck = checks[0];
    return {
      ok: allReady(checks),
      engine: id,
      index_seq: mirror.index?.seq ?? null,
      index_published_ms: mirror.index ? Math.round(mirror.indexPublishedMs * 1000) / 1000 : null,
      redis: redisCheck?.state === 'hung' ? 'hung' : redis.status,
      event_backlog: events.backlog,
      checks,
    };
  };
  return {
    healthz: () => json(200, { ok: true, engine: id }),
    readyz: () => {
      const ready = readiness();
      return json(ready.ok ? 200 : 503, ready);
    },
    publicReadyz: (upstream) => async (req) => {
      const ready = publicReadiness(await adminReadiness(upstream, req.requestId), readiness(), id);
      return json(ready.ok ? 200 : 503, ready);
    },
  };
}
