import { shiftDay } from './date-range.ts';

/** The periods a campaign's page opens with: today, yesterday, and the seven days ending today. */
export const FIGURE_PERIODS = ['today', 'yesterday', 'last_7_days'] as const;
export type FigurePeriod = (typeof FIGURE_PERIODS)[number];
export const FIGURE_PERIOD_LABELS: Record<FigurePeriod, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last_7_days: '7 days',
};

/** The days each period covers, inclusive, and the one range to ask the statistics for them all. */
export function figurePeriods(
  today: string,
): { range: { from: string; to: string } } & Record<FigurePeriod, { from: string; to: string }> {
  const weekStart = shiftDay(today, -6);
  return {
    range: { from: weekStart, to: today },
    today: { from: today, to: today },
    yesterday: { from: shiftDay(today, -1), to: shiftDay(today, -1) },
    last_7_days: { from: weekStart, to: today },
  };
}

export interface Figures {
  impressions: number;
  clicks: number;
  /** clicks / impressions; 0 without impressions. */
  ctr: number;
  /** Exact spend in nano-dollars (the statistics' `spent_nano`). */
  spent_nano: number;
  conversions: number;
  /** Spend per conversion in nano-dollars; null without a conversion (shown as a dash, not as $0). */
  ecpa_nano: number | null;
}

type DayRow = { date?: string | number } & Partial<Record<keyof Figures, string | number | null | undefined>>;

/** Sums the statistics' day rows that fall within `period` into the page's figures. */
export function figuresOf(rows: readonly DayRow[], period: { from: string; to: string }): Figures {
  const inside = rows.filter((r) => String(r.date) >= period.from && String(r.date) <= period.to);
  const sum = (k: 'impressions' | 'clicks' | 'spent_nano' | 'conversions') =>
    inside.reduce((a, r) => a + Number(r[k] ?? 0), 0);
  const [impressions, clicks, spent, conversions] = [
    sum('impressions'),
    sum('clicks'),
    sum('spent_nano'),
    sum('conversions'),
  ];
  return {
    impressions,
    clicks,
    ctr: impressions > 0 ? clicks / impressions : 0,
    spent_nano: spent,
    conversions,
    ecpa_nano: conversions > 0 ? Math.round(spent / conversions) : null,
  };
}
