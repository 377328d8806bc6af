// Leaf lists with no imports, so the browser widget can type-check against them without Node's types.

/** Ad formats: a campaign's, a creative's and a zone's. */
export const CAMPAIGN_FORMATS = ['native', 'banner', 'video', 'floating_video', 'push', 'in_page_push'] as const;
/** Where a floating video sits on the page. */
export const FV_CORNERS = ['br', 'bl', 'tr', 'tl'] as const;
/** What a zone shows when nothing fills it (publisher-controls.ts). */
export const FALLBACK_TYPES = ['html', 'url', 'none'] as const;
