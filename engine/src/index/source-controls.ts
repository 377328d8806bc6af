import type { BidAdjustment, SourceList } from '@adnet/schemas/source-lists';
import { multiplierMilli } from '@adnet/schemas/source-lists';
import type { ZoneBids } from '@adnet/schemas/target-cpa';

// A campaign's source list and bid adjustments as the hot path reads them: sets and maps, compiled once
// per stored value. A snapshot rebuilds the index whole and a change rebuilds its campaign's candidates, so
// the campaign's part keeps each compiled form with the very object the mirror holds (campaignPart in
// candidate.ts): a rebuild reuses it, and only a changed list is compiled again (10 000 entries on each of
// 1 000 campaigns must not be re-read per change).

export interface CompiledSources {
  /** Serve only on listed sources (true) or never on them (false). */
  readonly include: boolean;
  /** Our zones by subid. */
  readonly zones: ReadonlySet<string>;
  readonly sites: ReadonlySet<number>;
}

/** Null when the list restricts nothing: no list, or an empty one in either mode (documented in docs/delivery.md). */
export function compileSources(list: SourceList | undefined): CompiledSources | null {
  if (!list || (list.zones.length === 0 && list.sites.length === 0)) return null;
  return { include: list.mode === 'include', zones: new Set(list.zones), sites: new Set(list.sites) };
}

/**
 * Whether a campaign with this list may serve on a zone (its subid, or undefined when the impression names
 * none of ours) of a site (0 when none). Traffic that names no source of ours (an exchange's) is on no listed
 * source: an include list keeps the campaign off it, an exclude list lets it through.
 */
export function sourceAllows(s: CompiledSources, subid: string | undefined, siteId: number): boolean {
  const listed = (subid !== undefined && s.zones.has(subid)) || (siteId !== 0 && s.sites.has(siteId));
  return s.include ? listed : !listed;
}

/** Multipliers in thousandths (1000 = x1) by zone subid, site id and country. */
export interface CompiledAdjustments {
  readonly zones: ReadonlyMap<string, number> | null;
  readonly sites: ReadonlyMap<number, number> | null;
  readonly countries: ReadonlyMap<string, number> | null;
  /** The largest multiplier any impression can get, at least x1: the campaign's eCPM times it bounds its rank. */
  readonly maxMilli: number;
  /** The largest of the zone and site multipliers, and of the country ones, each at least x1. */
  readonly maxPlaceMilli: number;
  readonly maxCountryMilli: number;
}

/**
 * `cpaZones`: the target CPA's zone bids as multipliers (compileZoneBids), which replace the advertiser's own for
 * their zones: the zone's bid is what the campaign bids there. They are at most x1, so they never raise the bound.
 */
export function compileAdjustments(
  list: readonly BidAdjustment[] | undefined,
  cpaZones: ReadonlyMap<string, number> | null = null,
): CompiledAdjustments | null {
  if ((!list || list.length === 0) && (cpaZones === null || cpaZones.size === 0)) return null;
  list ??= [];
  const zones = new Map<string, number>();
  const sites = new Map<number, number>();
  const countries = new Map<string, number>();
  let maxPlaceMilli = 1000;
  let maxCountryMilli = 1000;
  for (const a of list) {
    // A x1 entry is kept: on its zone it overrides the site's or the country's multiplier.
    const milli = multiplierMilli(a.multiplier);
    if (a.zone !== undefined) zones.set(a.zone, milli);
    else if (a.site !== undefined) sites.set(a.site, milli);
    else if (a.country !== undefined) countries.set(a.country, milli);
    else continue;
    if (a.country === undefined) maxPlaceMilli = Math.max(maxPlaceMilli, milli);
    else maxCountryMilli = Math.max(maxCountryMilli, milli);
  }
  if (cpaZones) for (const [subid, milli] of cpaZones) zones.set(subid, milli);
  return zones.size + sites.size + countries.size === 0
    ? null
    : {
        zones: zones.size ? zones : null,
        sites: sites.size ? sites : null,
        countries: countries.size ? countries : null,
        maxMilli: Math.max(maxPlaceMilli, maxCountryMilli),
        maxPlaceMilli,
        maxCountryMilli,
      };
}

/** The multiplier (thousandths) for an impression: the zone's, else the site's, else the country's, else x1. */
export function multiplierFor(
  a: CompiledAdjustments,
  subid: string | undefined,
  siteId: number,
  country: string | undefined,
): number {
  if (subid !== undefined && a.zones !== null) {
    const m = a.zones.get(subid);
    if (m !== undefined) return m;
  }
  if (siteId !== 0 && a.sites !== null) {
    const m = a.sites.get(siteId);
    if (m !== undefined) return m;
  }
  if (country !== undefined && a.countries !== null) {
    const m = a.countries.get(country);
    if (m !== undefined) return m;
  }
  return 1000;
}

/** A target CPA's decisions as the hot path reads them: optimised zones' bids as multipliers, excluded zones. */
export interface CompiledZoneBids {
  /** Thousandths of the campaign's bid, by subid: at most 1000 (never above the campaign's bid), at least 1. */
  readonly milli: ReadonlyMap<string, number> | null;
  readonly excluded: ReadonlySet<string> | null;
}

/**
 * Null when there is nothing to apply. A zone's bid becomes the multiplier that turns the campaign's bid into it,
 * rounded down (the zone never pays more than its bid), and capped at x1: a campaign bid lowered since the
 * controller's last pass caps its zones at once.
 */
export function compileZoneBids(bids: ZoneBids | undefined, bidMicroCents: number): CompiledZoneBids | null {
  if (!bids || bids.zones.length === 0 || bidMicroCents <= 0) return null;
  const milli = new Map<string, number>();
  const excluded = new Set<string>();
  for (const z of bids.zones) {
    if (z.state === 'excluded') excluded.add(z.subid);
    else milli.set(z.subid, Math.max(1, Math.min(1000, Math.floor((z.bid_micro_cents * 1000) / bidMicroCents))));
  }
  return { milli: milli.size ? milli : null, excluded: excluded.size ? excluded : null };
}
