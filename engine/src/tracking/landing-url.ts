import { fillLandingUrl, microCentsToUsdText } from '@adnet/schemas/landing-macros';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import type { BidTicket } from './signed-token.ts';

/** What a click adds to its ticket for the landing URL. */
export interface ClickFacts {
  clickId: string;
  /** The campaign's bid type as the index knows it; undefined when the campaign is gone. */
  bidType: 'cpm' | 'cpc' | undefined;
  /** What this click was charged, in nano-dollars (0 for an invalid or unbilled click). */
  chargeNano: number;
  /** The viewer's OS and browser families: the ticket's, else the clicking browser's. */
  os: string;
  browser: string;
}

/**
 * The Location of a click's redirect: the creative's landing URL with its macros filled in from the
 * ticket and the click, each value URL-encoded. `{cost}` is what the click cost for a CPC campaign,
 * and the impression's clearing price (CPM) for a CPM campaign. Undefined when the result is not a
 * plain http(s) URL (a landing URL stored before the API checked it): the redirect is refused then.
 */
export function landingUrlOf(template: string, t: BidTicket, c: ClickFacts): string | undefined {
  const costMicroCents =
    c.bidType === 'cpc' ? c.chargeNano / 10_000 : c.bidType === 'cpm' ? t.priceMicroCents : undefined;
  const url = fillLandingUrl(template, {
    click_id: c.clickId,
    zone_id: t.zoneId ? String(t.zoneId) : '',
    site_id: t.siteId ? String(t.siteId) : '',
    campaign_id: String(t.campaignId),
    creative_id: String(t.creativeId),
    geo: t.country,
    device: t.device,
    os: c.os,
    browser: c.browser,
    cost: costMicroCents === undefined ? '' : microCentsToUsdText(Math.round(costMicroCents)),
    bid_type: c.bidType ?? '',
    // The format as served (the ticket's): an opted-in banner's creative in an interstitial zone is `interstitial`.
    format: t.format,
  });
  return isSafeHttpUrl(url) ? url : undefined;
}
