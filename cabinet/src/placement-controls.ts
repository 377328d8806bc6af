/**
 * What a placement's controls on a campaign's page write: its place in the campaign's source list and its bid
 * multiplier, as changes to the API's own `sources` and `bid_adjustments` fields (schemas/src/source-lists.ts).
 */
export interface Sources {
  mode: 'include' | 'exclude';
  zones: readonly string[];
  sites: readonly number[];
}
export interface Adjustment {
  zone?: string;
  site?: number;
  country?: string;
  multiplier: number;
}

/**
 * The list button of a zone: exclude it, take it off the exclude list, include it, or take it off the include list.
 * An empty list is an exclude list in effect (the campaign serves everywhere), so a zone on it can be excluded.
 */
export function listAction(s: Sources, subid: string): { label: string; listed: boolean; op: 'add' | 'remove' } {
  const listed = s.zones.includes(subid);
  const include = s.mode === 'include' && s.zones.length + s.sites.length > 0;
  if (include)
    return listed
      ? { label: 'Remove from include list', listed, op: 'remove' }
      : { label: 'Include', listed, op: 'add' };
  return listed ? { label: 'Serve here again', listed, op: 'remove' } : { label: 'Exclude', listed, op: 'add' };
}

/** The source list after the button: the mode kept, except that the first entry of an empty list is an exclusion. */
export function sourcesAfter(s: Sources, subid: string): { mode: Sources['mode']; zones: string[]; sites: number[] } {
  const a = listAction(s, subid);
  const empty = s.zones.length + s.sites.length === 0;
  const mode = empty ? 'exclude' : s.mode;
  return {
    mode,
    zones: a.op === 'add' ? [...s.zones, subid] : s.zones.filter((z) => z !== subid),
    sites: [...s.sites],
  };
}

/** The zone's multiplier, 1 without an adjustment of its own. */
export const zoneMultiplier = (adjustments: readonly Adjustment[], subid: string): number =>
  adjustments.find((a) => a.zone === subid)?.multiplier ?? 1;

/**
 * The adjustments with the zone's multiplier set to `multiplier` (1 removes it: no adjustment is the same bid), the
 * others kept as they were.
 */
export function withZoneMultiplier(
  adjustments: readonly Adjustment[],
  subid: string,
  multiplier: number,
): Adjustment[] {
  const others = adjustments.filter((a) => a.zone !== subid);
  return multiplier === 1 ? others : [...others, { zone: subid, multiplier }];
}

/** A placement's name: its site's domain and the zone's name, never the subid alone unless nothing else is known. */
export const placementName = (z: { domain: string; name: string; subid: string }): string =>
  z.domain && z.name ? `${z.domain} · ${z.name}` : z.domain || z.name || `zone ${z.subid}`;

/** The adjustments with the one at `index` set to `multiplier`, or taken out with null; the others kept in order. */
export function withAdjustmentAt(
  adjustments: readonly Adjustment[],
  index: number,
  multiplier: number | null,
): Adjustment[] {
  return adjustments.flatMap((a, i) => (i !== index ? [a] : multiplier === null ? [] : [{ ...a, multiplier }]));
}

/**
 * The field of an adjustment form an API error key names: `bid_adjustments.<index>.multiplier` is the multiplier,
 * any other key of that entry its target; undefined for another entry's.
 */
export function adjustmentField(key: string, index: number): 'multiplier' | 'target' | undefined {
  const m = /^bid_adjustments\.(\d+)(?:\.(\w+))?/.exec(key);
  if (!m || Number(m[1]) !== index) return undefined;
  return m[2] === 'multiplier' ? 'multiplier' : 'target';
}
