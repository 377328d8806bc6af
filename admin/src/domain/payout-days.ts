// When publishers' earnings move into their balances (docs/billing.md#publisher-payouts): the earnings
// of UTC day D move at the first close on or after D + holdDays + 1, so invalid traffic found in the
// hold period never reaches the balance; each close also looks `adjustDays` further back and posts
// any change as an adjustment.

const DAY_MS = 86_400_000;
export const utcDay = (ms: number): string => new Date(ms).toISOString().slice(0, 10);
export const addDays = (day: string, n: number): string => utcDay(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS);

/** The newest day whose earnings may move at `nowMs`. */
export const newestClosableDay = (nowMs: number, holdDays: number): string => utcDay(nowMs - (holdDays + 1) * DAY_MS);

/** The days one close reads: from `adjustDays` before the last closed day (or from the start) through the newest closable. */
export function closeWindow(
  nowMs: number,
  holdDays: number,
  adjustDays: number,
  closedThrough: string | null,
): { from: string; to: string } {
  const to = newestClosableDay(nowMs, holdDays);
  const from = closedThrough ? addDays(closedThrough < to ? closedThrough : to, -adjustDays) : '1970-01-01';
  return { from, to };
}

/** `YYYY-MM` as its first day and the first day of the next month (UTC), and as instants. */
export function monthRange(month: string): { from: string; to: string; fromMs: number; toMs: number } {
  const [y, m] = month.split('-').map(Number) as [number, number];
  const fromMs = Date.UTC(y, m - 1, 1);
  const toMs = Date.UTC(y, m, 1);
  return { from: utcDay(fromMs), to: utcDay(toMs - DAY_MS), fromMs, toMs };
}
