/** The ranges people pick statistics by, as dates in a time zone (the API's days are in `tz`). */
export const PRESETS = ['today', 'yesterday', 'last_7_days', 'last_30_days', 'this_month'] as const;
export type Preset = (typeof PRESETS)[number];

export const PRESET_LABELS: Record<Preset, string> = {
  today: 'Today',
  yesterday: 'Yesterday',
  last_7_days: 'Last 7 days',
  last_30_days: 'Last 30 days',
  this_month: 'This month',
};

/** `now`'s calendar day in `tz`, as YYYY-MM-DD. */
export function dayIn(now: number, tz: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(now),
  );
}

/**
 * The calendar day `days` after `day` (negative: before). Counted on the date, not as 24-hour steps from
 * now: across a daylight-saving change, now minus 24 hours can land two dates back.
 */
export const shiftDay = (day: string, days: number) =>
  new Date(Date.parse(`${day}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

/** From and to (inclusive) of a preset, counted in whole days of `tz`. */
export function presetRange(p: Preset, now: number, tz: string): { from: string; to: string } {
  const today = dayIn(now, tz);
  switch (p) {
    case 'today':
      return { from: today, to: today };
    case 'yesterday':
      return { from: shiftDay(today, -1), to: shiftDay(today, -1) };
    case 'last_7_days':
      return { from: shiftDay(today, -6), to: today };
    case 'last_30_days':
      return { from: shiftDay(today, -29), to: today };
    case 'this_month':
      return { from: `${today.slice(0, 8)}01`, to: today };
  }
}
