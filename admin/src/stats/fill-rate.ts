/**
 * A zone's fill rate: the share of its valid ad requests that showed an ad, as impressions over
 * impressions plus unfilled requests (migration step 7), to four decimal places; null without either.
 * An ad served but never rendered counts as neither, so this is the rate of requests that became
 * counted impressions.
 */
export function fillRate(impressions: number, unfilled: number): number | null {
  const requests = impressions + unfilled;
  return requests > 0 ? Math.round((impressions / requests) * 10_000) / 10_000 : null;
}
