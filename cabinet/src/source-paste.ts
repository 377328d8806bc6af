// What an advertiser pastes into the traffic-source forms, in the API's shapes. Nothing is checked
// here: the API names every bad entry (`sources.zones.3`, `bid_adjustments.2.multiplier`).

const entries = (typed: string): string[] => typed.split(/[\s,;]+/).filter(Boolean);

/** Zone subids, one per line or comma-separated (as copied from a report or a spreadsheet column). */
export const pastedZones = (typed: string): string[] => entries(typed);

/** Site ids; anything not a number goes as NaN (JSON null), for the API to name. */
export const pastedSites = (typed: string): number[] => entries(typed).map((t) => (/^\d+$/.test(t) ? Number(t) : NaN));

export interface AdjustmentLine {
  zone?: string;
  site?: number;
  country?: string;
  multiplier: number;
}

const LINE = /^(zone|site|country)\s*[:=]?\s*(\S+?)\s*[,;\s]\s*[x×*]?\s*(\S+)$/i;

/** Lines such as `zone a1b2c3 x2`, `site 17 0.5`, `country de 1.25`; a line it cannot read goes with no key, for the API to name. */
export function pastedAdjustments(typed: string): AdjustmentLine[] {
  return typed
    .split(/\n/)
    .map((l) => l.trim())
    .filter(Boolean)
    .map((line) => {
      const m = LINE.exec(line);
      if (!m) return { multiplier: NaN };
      const [kind, key, mult] = [(m[1] as string).toLowerCase(), m[2] as string, Number(m[3])];
      if (kind === 'site') return { site: /^\d+$/.test(key) ? Number(key) : NaN, multiplier: mult };
      return kind === 'zone' ? { zone: key, multiplier: mult } : { country: key.toLowerCase(), multiplier: mult };
    });
}

/** The stored adjustments as the editor shows them, one per line. */
export const adjustmentsText = (list: readonly AdjustmentLine[]): string =>
  list
    .map(
      (a) =>
        (a.zone !== undefined
          ? `zone ${a.zone}`
          : a.site !== undefined
            ? `site ${a.site}`
            : `country ${a.country ?? ''}`) + ` x${a.multiplier}`,
    )
    .join('\n');
