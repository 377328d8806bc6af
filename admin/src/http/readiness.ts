import type { Readiness } from '../observability/health.ts';
import type { AdminHealth } from '../observability/health.ts';

export type { Readiness };

/**
 * Ready when Redis answers and, where this process reads statistics, ClickHouse does too; computed from the
 * background probes (observability/health.ts), so it answers at once even while a dependency hangs.
 */
export function readiness(svc: { health: Pick<AdminHealth, 'readiness'> }): Readiness {
  return svc.health.readiness();
}
