// How the campaign builder words the traffic estimate beside the bid (POST /api/adv/estimate). Pure, for its test.

/** The estimate as the API answers it (schemas/src/estimate.ts). */
export interface EstimateFigures {
  window_days: number;
  requests_per_day: number;
  impressions_per_day: number;
  win_rate: number;
  spend_per_day_usd: number;
  cpm_percentiles_usd: { p25: number | null; p50: number | null; p75: number | null; p90: number | null };
  min_bid_usd: number;
  recommended_bid_usd: number;
}

const count = (n: number): string => Math.round(n).toLocaleString('en-US');
/** Dollars to the micro-cent a bid may name, cents at least: 4.5 as $4.50, 1.50001 as $1.50001. */
const dollars = (n: number): string => `$${n.toFixed(5).replace(/0{1,3}$/, '')}`;

/** The estimate's lines: the traffic found, what the bid wins of it, and the bids to consider. */
export function estimateLines(e: EstimateFigures, bidType: 'cpm' | 'cpc'): string[] {
  if (e.requests_per_day === 0)
    return [`No matching traffic in the last ${e.window_days} days: widen the targeting to reach any.`];
  const unit = bidType === 'cpm' ? 'CPM' : 'CPC';
  const lines = [
    `About ${count(e.requests_per_day)} matching requests a day (last ${e.window_days} days).`,
    `This bid wins ${(e.win_rate * 100).toFixed(1)} % of them: about ${count(e.impressions_per_day)} impressions and ${dollars(e.spend_per_day_usd)} a day within the budget.`,
  ];
  const p = e.cpm_percentiles_usd;
  if (p.p50 !== null)
    lines.push(
      `Winning prices (CPM): ${[p.p25, p.p50, p.p75, p.p90].map((v) => `$${(v ?? 0).toFixed(2)}`).join(' / ')} (p25 / p50 / p75 / p90).`,
    );
  lines.push(`Minimum ${unit} bid ${dollars(e.min_bid_usd)}; recommended ${dollars(e.recommended_bid_usd)}.`);
  return lines;
}
