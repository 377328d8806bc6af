// The schedule step's start and end: a date picker's wall time (`2026-12-01T09:00`, <input type=datetime-local>)
// read in the campaign's own time zone, as its dayparting hours are, and the API's instants shown back that way.

const formats = new Map<string, Intl.DateTimeFormat>();
function format(timeZone: string): Intl.DateTimeFormat {
  let f = formats.get(timeZone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formats.set(timeZone, f);
  }
  return f;
}

/** The wall clock of `ms` in `timeZone`, as the epoch milliseconds of the same wall time in UTC. */
function wallMs(ms: number, timeZone: string): number {
  const p: Record<string, number> = {};
  for (const part of format(timeZone).formatToParts(ms)) if (part.type !== 'literal') p[part.type] = Number(part.value);
  return Date.UTC(p.year ?? 1970, (p.month ?? 1) - 1, p.day ?? 1, (p.hour ?? 0) % 24, p.minute ?? 0, p.second ?? 0);
}

const pad = (n: number, w = 2) => String(Math.abs(n)).padStart(w, '0');
const LOCAL = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/;

/**
 * `2026-12-01T09:00` in Europe/Berlin as `2026-12-01T09:00:00+01:00`; an empty value is null. What is not a
 * wall time (or a zone the browser does not know) goes as typed, for the API to name.
 */
export function localToIso(local: string, timeZone: string): string | null {
  if (local === '') return null;
  const m = LOCAL.exec(local);
  if (!m) return local;
  const wall = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]));
  try {
    // Two passes: the offset at the guessed instant can differ from the one at the answer across a DST change.
    let offset = wallMs(wall, timeZone) - wall;
    offset = wallMs(wall - offset, timeZone) - (wall - offset);
    const minutes = Math.round(offset / 60_000);
    return `${local}:00${minutes < 0 ? '-' : '+'}${pad(Math.trunc(minutes / 60))}:${pad(minutes % 60)}`;
  } catch {
    return local;
  }
}

/** An API instant as the date picker shows it in `timeZone` (`2026-12-01T09:00`); '' for none. */
export function isoToLocal(iso: string | null | undefined, timeZone: string): string {
  const ms = iso ? Date.parse(iso) : NaN;
  if (Number.isNaN(ms)) return '';
  let wall: number;
  try {
    wall = wallMs(ms, timeZone);
  } catch {
    wall = ms;
  }
  return new Date(wall).toISOString().slice(0, 16);
}

/** The zones to choose from: UTC first, then the browser's IANA names. */
export function timeZones(): string[] {
  const known = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  return ['UTC', ...known.filter((z) => z !== 'UTC')];
}
