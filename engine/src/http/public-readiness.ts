import { readinessSchema } from '@adnet/schemas/readiness';
import type { DependencyCheck, ReadinessAnswer } from '@adnet/schemas/readiness';

/** The admin's own readiness answers at once (observability/health.ts): later than this, it is not answering. */
export const ADMIN_READY_DEADLINE_MS = 700;

/**
 * The admin's `/readyz` as this engine sees it, within ADMIN_READY_DEADLINE_MS: its answer, and the check
 * `admin` (hung past the deadline, down when refused or answering nonsense).
 */
export async function adminReadiness(
  upstream: string,
  requestId: string,
): Promise<{ check: DependencyCheck; answer?: ReadinessAnswer }> {
  const started = performance.now();
  try {
    const res = await fetch(`${upstream}/readyz`, {
      signal: AbortSignal.timeout(ADMIN_READY_DEADLINE_MS),
      headers: { 'x-request-id': requestId },
    });
    const parsed = readinessSchema.safeParse(await res.json());
    if (!parsed.success)
      return { check: { name: 'admin', state: 'down', detail: `/readyz answered ${res.status} without a readiness` } };
    const ms = Math.round(performance.now() - started);
    return {
      check: { name: 'admin', state: 'ok', detail: `/readyz answered ${res.status} in ${ms} ms` },
      answer: parsed.data,
    };
  } catch (err) {
    if (err instanceof Error && err.name === 'TimeoutError') {
      return {
        check: { name: 'admin', state: 'hung', detail: `/readyz unanswered after ${ADMIN_READY_DEADLINE_MS} ms` },
      };
    }
    const cause =
      err instanceof Error && err.cause instanceof Error
        ? err.cause.message
        : err instanceof Error
          ? err.message
          : String(err);
    return { check: { name: 'admin', state: 'down', detail: `/readyz failed: ${cause}` } };
  }
}

/**
 * The public `/readyz` of an engine in front of the admin: the admin's answer (its fields kept as they were),
 * its checks, the check `admin`, and this engine's checks named `engine.<name>`. Ready when both are.
 */
export function publicReadiness(
  admin: { check: DependencyCheck; answer?: ReadinessAnswer },
  engine: { ok: boolean; checks: DependencyCheck[] },
  engineId: string,
) {
  const answer = admin.answer;
  const checks = [
    ...(answer?.checks ?? []),
    admin.check,
    ...engine.checks.map((c) => ({ ...c, name: `engine.${c.name}` })),
  ];
  return { ...answer, ok: (answer?.ok ?? false) && engine.ok, engine: engineId, checks };
}
