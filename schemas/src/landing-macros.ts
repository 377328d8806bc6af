// Landing-URL macros: which `{name}`s a creative's landing URL may carry, and how the click redirect
// fills them. Zod-free, so the cabinet's live preview runs the very function the engine runs.

/** Every macro a landing URL may use, in the order the documentation lists them. */
export const LANDING_MACROS = [
  'click_id',
  'zone_id',
  'site_id',
  'campaign_id',
  'creative_id',
  'geo',
  'device',
  'os',
  'browser',
  'cost',
  'bid_type',
  'format',
] as const;
export type LandingMacro = (typeof LANDING_MACROS)[number];
/** What a click knows, each value as text ('' when unknown); URL-encoded when filled in. */
export type LandingValues = Record<LandingMacro, string>;

const KNOWN: ReadonlySet<string> = new Set(LANDING_MACROS);
/** The `{name}` syntax of url.ts: no nested braces. */
const MACRO = /\{([^{}]*)\}/g;

/**
 * What is wrong with the macros of a landing URL (already checked as an http(s) URL with its macros
 * kept), or undefined. Unknown names are named. A macro in the scheme, user info, host or port is
 * refused: a value there could move the visitor to another site, and the blocked-advertiser rules
 * read the landing host as typed.
 */
export function landingMacroProblem(url: string): string | undefined {
  const unknown = [...new Set([...url.matchAll(MACRO)].map((m) => m[1] ?? '').filter((name) => !KNOWN.has(name)))];
  if (unknown.length) {
    const names = unknown.map((n) => `{${n}}`).join(', ');
    return `unknown macro ${names}; use ${LANDING_MACROS.map((m) => `{${m}}`).join(', ')}`;
  }
  const authorityEnd = url.indexOf('/', url.indexOf('//') + 2);
  const authority = authorityEnd === -1 ? url : url.slice(0, authorityEnd);
  if (authority.includes('{')) return 'macros may only be in the path, query or fragment, not in the host';
  return undefined;
}

/** The landing URL of one click: each known macro replaced by its value, URL-encoded; anything else kept as it is. */
export function fillLandingUrl(template: string, values: LandingValues): string {
  return template.replace(MACRO, (m, name: string) =>
    KNOWN.has(name) ? encodeURIComponent(values[name as LandingMacro]) : m,
  );
}

/** A CPM price or a click's charge in micro-cents as a plain USD decimal (`1.25`, `0.00042`, `0`), exactly. */
export function microCentsToUsdText(microCents: number): string {
  const whole = Math.floor(microCents / 100_000);
  const fraction = String(microCents % 100_000)
    .padStart(5, '0')
    .replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** Values a preview shows in place of a real click's (the cabinet's macro help). */
export const SAMPLE_LANDING_VALUES: LandingValues = {
  click_id: '6f1c2a9e-7b41-4d2e-9a55-0c3e8f1d2b7a',
  zone_id: '42',
  site_id: '7',
  campaign_id: '1001',
  creative_id: '2002',
  geo: 'us',
  device: 'mobile',
  os: 'android',
  browser: 'chrome',
  cost: '1.25',
  bid_type: 'cpm',
  format: 'banner',
};
