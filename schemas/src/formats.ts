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
] as const;
/** The formats whose ad is a landing page opened whole (no creative shown by us): one slot, `pop`. */
export const POP_FORMATS = ['popunder', 'direct_link'] as const;
/** What opens a popunder zone's pop: the visitor's first click on the page, or any click until one opens. */
export const POP_TRIGGERS = ['first_click', 'any_click'] as const;
/** Where a floating video sits on the page. */
export const FV_CORNERS = ['br', 'bl', 'tr', 'tl'] as const;
/** What a zone shows when nothing fills it (publisher-controls.ts). */
export const FALLBACK_TYPES = ['html', 'url', 'none'] as const;
