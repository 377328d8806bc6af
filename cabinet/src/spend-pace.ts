import { count } from './format.ts';

/**
 * How long the balance lasts at the pace of the last seven days (today included), counted from the
 * first of them with spend, so a campaign started yesterday is not averaged over a week it did not run.
 */
export function daysLeftText(
  balanceCents: number,
  lastDays: readonly string[],
  rows: readonly { date?: string | number; spent_cents?: string | number }[],
): string {
  if (balanceCents <= 0) return 'campaigns cannot spend';
  const spentOn = lastDays.map((d) =>
    rows.filter((x) => x.date === d).reduce((a, x) => a + Number(x.spent_cents ?? 0), 0),
  );
  const first = spentOn.findIndex((c) => c > 0);
  if (first < 0) return 'no spend in the last 7 days';
  const perDay = spentOn.reduce((a, c) => a + c, 0) / (spentOn.length - first);
  const days = Math.floor(balanceCents / perDay);
  return days < 1 ? 'less than a day of spend left' : `about ${count(days)} day${days === 1 ? '' : 's'} of spend left`;
}
