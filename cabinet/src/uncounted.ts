// What a publisher is not paid for, in words: the reasons `GET /api/pub/stats/uncounted` gives
// (schemas/src/stats.ts), named as a person reads them. A reason added later shows as the API writes it.

/** A row as the API sends it: one kind and reason within one group (day, hour, site or zone). */
export interface UncountedRow {
  of: 'request' | 'impression' | 'click';
  reason: string;
  events: number;
}

export const UNCOUNTED_KIND_LABELS: Record<UncountedRow['of'], string> = {
  request: 'Ad request',
  impression: 'Impression',
  click: 'Click',
};

const SHARED: Record<string, string> = {
  campaign_not_active: "Advertiser's campaign stopped",
  budget_exhausted: "Advertiser's daily budget used up",
  balance_exhausted: "Advertiser's balance used up",
  test: 'Test request',
};

/** Per kind: the no-bid reasons of invalid traffic, why a beacon or pixel was not counted, the click rules. */
const REASON_LABELS: Record<UncountedRow['of'], Record<string, string>> = {
  request: {
    bot_traffic: 'Known bot or crawler',
    address_flood: 'Too many requests from one address',
    fingerprint_flood: 'Too many requests from one browser',
    foreign_origin: "From a page not on the zone's site",
  },
  impression: {
    ...SHARED,
    expired: 'Reported too late',
    mismatch: 'Reported by another network or browser than the ad was shown to',
  },
  click: {
    ...SHARED,
    bot_user_agent: 'Known bot or crawler',
    not_rendered: 'The ad was never shown',
    too_fast: 'Too soon after the ad appeared',
    no_focus: 'Page not in focus',
    no_position: 'No position in the ad',
    no_fingerprint: 'No browser fingerprint',
    no_impression: 'No impression of the ad before it',
    other_viewer: 'Another network or browser than the ad was shown to',
    expired: 'More than a day after the ad was shown',
    duplicate: 'Repeated click on one ad',
    click_flood: 'Too many clicks from one browser',
  },
};

export const uncountedReasonLabel = (of: UncountedRow['of'], reason: string): string =>
  REASON_LABELS[of][reason] ?? reason;

/** The range's rows summed per kind and reason (the API's groups dropped), most events first. */
export function uncountedByReason(rows: readonly UncountedRow[]): UncountedRow[] {
  const sums = new Map<string, UncountedRow>();
  for (const r of rows) {
    const key = `${r.of} ${r.reason}`;
    const s = sums.get(key);
    if (s) s.events += r.events;
    else sums.set(key, { of: r.of, reason: r.reason, events: r.events });
  }
  return [...sums.values()].sort(
    (a, b) => b.events - a.events || a.of.localeCompare(b.of) || a.reason.localeCompare(b.reason),
  );
}
