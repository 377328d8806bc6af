import { Periodic } from '@adnet/runtime/periodic';
import { closeWindow } from '../domain/payout-days.ts';
import type { AdminConfig } from '@adnet/schemas/config';
import type { ClickHouseClient } from '../clickhouse/open.ts';
import type { Logger } from '../log.ts';
import type { PayoutStore } from './payout-store.ts';
import { publisherEarningsCents } from '../stats/stats-query.ts';

/** The statistics the earnings come from and the store the balances and payouts are kept in. */
export interface PayoutPorts {
  config: Pick<AdminConfig, 'billing' | 'stats'>;
  log: Logger;
  clickhouse: ClickHouseClient | undefined;
  payouts: PayoutStore;
}

export interface CloseResult {
  from: string;
  to: string;
  /** Publisher-days whose earnings moved into a balance in this pass. */
  closed: number;
  adjusted: number;
  payoutsDue: number;
}

/**
 * The daily close: each publisher's earnings per UTC day (from the statistics, exactly as
 * `GET /api/pub/stats` computes them) move into the balance once per publisher-day, after the hold
 * period; changes to days already closed become adjustment entries; then every publisher whose balance
 * reached their threshold gets a due payout. Each step is an idempotent script, so any number of admin
 * processes may run it at any time: a second pass, concurrent or later, moves nothing twice.
 */
export async function runPayoutClose(svc: PayoutPorts, nowMs = Date.now()): Promise<CloseResult> {
  const ch = svc.clickhouse;
  if (!ch) throw new Error('the payout close needs the event store');
  const { payoutHoldDays, payoutAdjustDays } = svc.config.billing;
  const { from, to } = closeWindow(nowMs, payoutHoldDays, payoutAdjustDays, await svc.payouts.closedThrough());
  const rows = await (
    await ch.query({
      query: `SELECT publisher_id, toString(toDate(hour)) AS day, sum(spent_nano) AS spent
              FROM ${svc.config.stats.database}.stats_hourly
              WHERE publisher_id > 0 AND toDate(hour) BETWEEN {from:Date} AND {to:Date}
              GROUP BY publisher_id, day ORDER BY publisher_id, day`,
      query_params: { from, to },
      format: 'JSONEachRow',
    })
  ).json<{ publisher_id: number | string; day: string; spent: number | string }>();
  const share = svc.config.billing.publisherRevenueSharePercent;
  const amounts = new Map<number, Map<string, number>>();
  for (const r of rows) {
    const pub = Number(r.publisher_id);
    let days = amounts.get(pub);
    if (!days) amounts.set(pub, (days = new Map<string, number>()));
    days.set(r.day, publisherEarningsCents(r.spent, share));
  }
  // A closed day whose earnings were all taken back no longer has a row: it is worth 0 now.
  const known = await svc.payouts.publishers();
  for (const pub of known) {
    const closed = await svc.payouts.closedDays(pub);
    for (const [day, cents] of closed) {
      if (day < from || day > to || cents === 0) continue;
      let days = amounts.get(pub);
      if (!days) amounts.set(pub, (days = new Map<string, number>()));
      if (!days.has(day)) days.set(day, 0);
    }
  }
  let closed = 0;
  let adjusted = 0;
  for (const [pub, days] of amounts) {
    for (const [day, cents] of days) {
      const r = await svc.payouts.closeDay(pub, day, cents);
      if (r === 1) closed++;
      else if (r === 2) adjusted++;
    }
  }
  await svc.payouts.markClosedThrough(to);
  let payoutsDue = 0;
  for (const pub of new Set([...known, ...amounts.keys()]))
    if ((await svc.payouts.makePayoutIfDue(pub)) > 0) payoutsDue++;
  if (closed || adjusted || payoutsDue)
    svc.log.info({ event: 'payouts.closed', from, to, closed, adjusted, payoutsDue }, 'publisher earnings closed');
  return { from, to, closed, adjusted, payoutsDue };
}

/** Runs the close on each admin process every PAYOUT_CLOSE_INTERVAL_MS; passes are idempotent. */
export const payoutCloser = (svc: PayoutPorts): Periodic =>
  new Periodic({
    intervalMs: svc.config.billing.payoutCloseIntervalMs,
    runAtStart: true,
    pass: () => runPayoutClose(svc),
    onError: (err) => svc.log.error({ err, event: 'payouts.close_failed' }, 'payout close failed'),
  });
