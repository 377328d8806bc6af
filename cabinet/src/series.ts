/**
 * Statistics come back only for days and hours that had traffic; a chart of them would join the
 * dots across silent days (a 7-day range with one busy day draws one dot). These fill every slot
 * of the range with zeros.
 */
type Row = Record<string, string | number | null | undefined>;

const DAY_MS = 86_400_000;

/** Every calendar day from `from` to `to` (YYYY-MM-DD, inclusive). */
export function daysOf(from: string, to: string): string[] {
  const out: string[] = [];
  const end = Date.parse(`${to}T00:00:00Z`);
  for (let t = Date.parse(`${from}T00:00:00Z`); t <= end && out.length <= 400; t += DAY_MS)
    out.push(new Date(t).toISOString().slice(0, 10));
  return out;
}

/** Every hour of the range as the API writes it (`YYYY-MM-DD HH:00`). */
export function hoursOf(from: string, to: string): string[] {
  return daysOf(from, to).flatMap((d) => Array.from({ length: 24 }, (_, h) => `${d} ${String(h).padStart(2, '0')}:00`));
}

/** `rows` keyed by `key`, with a zero row (numbers 0) for each slot that has none, in slot order. */
export function fillSlots(slots: string[], rows: Row[], key: string, metrics: readonly string[]): Row[] {
  const byKey = new Map(rows.map((r) => [String(r[key]), r]));
  return slots.map((slot) => byKey.get(slot) ?? { [key]: slot, ...Object.fromEntries(metrics.map((m) => [m, 0])) });
}
