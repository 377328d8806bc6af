// Leaf lists with no imports, so the browser widget can type-check against them without Node's types.

/**
 * Ad formats: a campaign's, a creative's and a zone's. A `popunder` or `direct_link` ad is its landing page
 * alone, opened by a click on the publisher's page (popunder) or a visit to the zone's link (direct link);
 * both fill the same pop slot (docs/delivery.md, pops).
 */
export const CAMPAIGN_FORMATS = [
  'native',
  'banner',
  'video',
  'floating_video',
  'push',
  'in_page_push',
  'popunder',
  'direct_link',
  'interstitial',
] as const;
/** The formats whose ad is a landing page opened whole (no creative shown by us): one slot, `pop`. */
export const POP_FORMATS = ['popunder', 'direct_link'] as const;
/**
 * The creative sizes of an `interstitial` campaign: a phone's and a tablet's full screen, each way up. Banner and
 * native campaigns that opt in (`interstitial: true`) show their own creative centred in the overlay instead.
 */
export const INTERSTITIAL_SIZES = [
  [320, 480],
  [480, 320],
  [768, 1024],
  [1024, 768],
] as const;
/** The formats whose campaigns may opt in to interstitial zones (a campaign's `interstitial: true`). */
export const INTERSTITIAL_OPT_IN_FORMATS = ['banner', 'native'] as const;
/** What opens a popunder zone's pop: the visitor's first click on the page, or any click until one opens. */
export const POP_TRIGGERS = ['first_click', 'any_click'] as const;
/**
 * Predicted click-through rate by format, used to rank CPC bids as eCPM (bid x CTR x 1000): the engine's
 * ranking and the admin's traffic estimate must convert alike. Industry-typical priors until per-creative
 * click statistics feed a smoothed estimate (the statistics issue).
 */
export const CTR_PRIOR: Readonly<Record<(typeof CAMPAIGN_FORMATS)[number], number>> = {
  native: 0.004,
  banner: 0.001,
  video: 0.008,
  floating_video: 0.005,
  push: 0.02,
  in_page_push: 0.01,
  // A pop is the visit itself: a CPC pop is paid when it opens, so its price per pop is its bid.
  popunder: 1,
  direct_link: 1,
  // A full-page ad the visitor must look at before going on: clicked more often than a banner in the page.
  interstitial: 0.005,
};
/** Where a floating video sits on the page. */
export const FV_CORNERS = ['br', 'bl', 'tr', 'tl'] as const;
/** What a zone shows when nothing fills it (publisher-controls.ts). */
export const FALLBACK_TYPES = ['html', 'url', 'none'] as const;
