import { AppError } from '../errors.ts';
import type { Services } from '../services.ts';

/**
 * After Redis lost its data (or was restored from an old backup), puts each
 * campaign's spend for one UTC budget day back into its budget pool from the
 * event store, which holds every charged event exactly once. Holds are left to
 * the engines, which re-base them at their next reservation.
 */
export async function rebuildDailySpend(
  svc: Services,
  day: string,
): Promise<{ day: string; campaigns: number; spent_cents: number }> {
  const ch = svc.clickhouse;
  if (!ch) throw new AppError('unavailable', 'The event store is not available in this process');
  const rows = await (
    await ch.query({
      query: `SELECT campaign_id, sum(charge_nano) AS spent FROM ${svc.config.clickhouseDatabase}.events
              WHERE toDate(ts) = {day:Date} AND type IN ('win', 'impression', 'click') AND invalid = 0 AND campaign_id > 0
              GROUP BY campaign_id`,
      query_params: { day },
      format: 'JSONEachRow',
    })
  ).json<{ campaign_id: number | string; spent: number | string }>();
  let total = 0;
  for (const r of rows) total += Number(r.spent);
  // Then marked, so that the engines' pacers read the rebuilt spend at their next tick.
  await svc.spend.rebuildDay(
    day,
    rows.map((r) => ({ campaignId: Number(r.campaign_id), spent: String(r.spent) })),
  );
  svc.log.info({ event: 'spend.rebuilt', day, campaigns: rows.length }, 'daily spend rebuilt from the event store');
  return { day, campaigns: rows.length, spent_cents: Math.floor(total / 10_000_000) };
}
