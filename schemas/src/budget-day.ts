/**
 * Daily budgets reset at midnight UTC. Engines and the admin derive the spend
 * counter's day from this one function so they always name the same key.
 */
export function budgetDay(nowMs: number): string {
  // Asked several times per bid: the day's name is kept until the day ends (UTC days are exactly
  // 86 400 000 ms in JavaScript time), instead of formatting a Date every time.
  if (nowMs >= dayStart && nowMs < dayStart + DAY_MS) return dayName;
  dayStart = Math.floor(nowMs / DAY_MS) * DAY_MS;
  dayName = new Date(dayStart).toISOString().slice(0, 10);
  return dayName;
}

const DAY_MS = 86_400_000;
let dayStart = Number.NaN;
let dayName = '';
