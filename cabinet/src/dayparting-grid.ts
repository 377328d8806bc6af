// The schedule step's 7x24 grid and the API's dayparting (`{ mon: [9, 10, ...], ... }`, schemas/src/schedule.ts):
// the grid is a week of 168 hour flags, Monday 0 h first, as the engine compiles a schedule (`weekHours`).
import { WEEKDAYS } from '@adnet/schemas/schedule';
import type { Dayparting, Weekday } from '@adnet/schemas/schedule';

export const WEEK_HOURS = 168;
export const DAY_NAMES: Record<Weekday, string> = {
  mon: 'Monday',
  tue: 'Tuesday',
  wed: 'Wednesday',
  thu: 'Thursday',
  fri: 'Friday',
  sat: 'Saturday',
  sun: 'Sunday',
};
const SHORT: Record<Weekday, string> = {
  mon: 'Mon',
  tue: 'Tue',
  wed: 'Wed',
  thu: 'Thu',
  fri: 'Fri',
  sat: 'Sat',
  sun: 'Sun',
};

/** The grid of a stored dayparting; none (null) is an empty grid, which serves around the clock. */
export function cellsFromDayparting(d: Dayparting | null | undefined): boolean[] {
  const cells = Array.from({ length: WEEK_HOURS }, () => false);
  WEEKDAYS.forEach((day, i) => {
    for (const h of d?.[day] ?? []) if (Number.isInteger(h) && h >= 0 && h < 24) cells[i * 24 + h] = true;
  });
  return cells;
}

/** The API's dayparting of a grid: only the days with an hour painted; an empty grid is null (no dayparting). */
export function daypartingFromCells(cells: readonly boolean[]): Partial<Record<Weekday, number[]>> | null {
  const days = WEEKDAYS.map((day, i) => {
    const hours: number[] = [];
    for (let h = 0; h < 24; h++) if (cells[i * 24 + h]) hours.push(h);
    return [day, hours] as const;
  }).filter(([, hours]) => hours.length > 0);
  return days.length ? Object.fromEntries(days) : null;
}

/** The grid as a draft keeps it: 168 characters of 0 and 1. */
export const cellsToText = (cells: readonly boolean[]): string => cells.map((c) => (c ? '1' : '0')).join('');
/** A draft's grid; anything that is not 168 flags is an empty grid. */
export const cellsFromText = (text: string): boolean[] =>
  /^[01]{168}$/.test(text) ? [...text].map((c) => c === '1') : Array.from({ length: WEEK_HOURS }, () => false);

const hh = (h: number) => `${String(h).padStart(2, '0')}:00`;

/** One day's hours as ranges, the end exclusive: [9..17, 20] -> "09:00–18:00, 20:00–21:00". */
function ranges(hours: readonly number[]): string {
  const out: string[] = [];
  for (let i = 0; i < hours.length;) {
    const from = hours[i] ?? 0;
    let to = from;
    while (hours[i + 1] === to + 1) {
      to++;
      i++;
    }
    i++;
    out.push(`${hh(from)}–${to === 23 ? '24:00' : hh(to + 1)}`);
  }
  return out.join(', ');
}

/**
 * The schedule in words, days with the same hours run together: "Mon–Fri 09:00–18:00; Sat 10:00–14:00".
 * Days not named serve no hour.
 */
export function describeDayparting(d: Dayparting | null | undefined): string {
  const grid = cellsFromDayparting(d);
  const perDay = WEEKDAYS.map((day, i) => {
    const hours: number[] = [];
    for (let h = 0; h < 24; h++) if (grid[i * 24 + h]) hours.push(h);
    return { day, text: hours.length ? ranges(hours) : '' };
  });
  if (perDay.every((p) => p.text === '')) return 'around the clock';
  const parts: string[] = [];
  for (let i = 0; i < perDay.length;) {
    const text = perDay[i]?.text ?? '';
    let j = i;
    while (j + 1 < perDay.length && perDay[j + 1]?.text === text) j++;
    if (text) {
      const first = SHORT[perDay[i]?.day ?? 'mon'];
      const last = SHORT[perDay[j]?.day ?? 'mon'];
      parts.push(`${i === j ? first : j === i + 1 ? `${first}, ${last}` : `${first}–${last}`} ${text}`);
    }
    i = j + 1;
  }
  return parts.join('; ');
}
