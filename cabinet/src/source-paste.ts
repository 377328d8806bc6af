// What an advertiser pastes into the traffic-source forms, in the API's shapes. Nothing is checked
// here: the API names every bad entry (`sources.zones.3`, `sources.sites.1`). Bid adjustments are not typed:
// they have controls of their own (pages/traffic-sources.ts, pages/placements.ts).

const entries = (typed: string): string[] => typed.split(/[\s,;]+/).filter(Boolean);

/** Zone subids, one per line or comma-separated (as copied from a report or a spreadsheet column). */
export const pastedZones = (typed: string): string[] => entries(typed);

/** Site ids; anything not a number goes as NaN (JSON null), for the API to name. */
export const pastedSites = (typed: string): number[] => entries(typed).map((t) => (/^\d+$/.test(t) ? Number(t) : NaN));
