import { z } from 'zod';
import { BANNER_SIZES, CAMPAIGN_FORMATS, httpUrl, idSchema, oneOf, whenValid } from './api.ts';
import { LANGUAGE_CODES } from './geo.ts';
import { normalizeDomain } from './domain-name.ts';
import { FV_CORNERS, POP_FORMATS, POP_TRIGGERS } from './formats.ts';
import { pushPromptSchema } from './push.ts';
import { SITE_CATEGORY_NAMES } from './site-categories.ts';
import { controlsInputShape, controlsOutputShape } from './publisher-controls.ts';
import type { StoredControls } from './publisher-controls.ts';

export { SITE_CATEGORIES, SITE_CATEGORY_NAMES } from './site-categories.ts';
export type { SiteCategory } from './site-categories.ts';
export const SITE_STATUSES = ['draft', 'pending_review', 'approved', 'rejected'] as const;
export const ZONE_STATUSES = ['active', 'paused'] as const;
export { FV_CORNERS, POP_TRIGGERS };
export const ZONE_FORMATS = CAMPAIGN_FORMATS;
export const VIDEO_ZONE_FORMATS: ReadonlySet<string> = new Set(['video', 'floating_video']);
/** Zones whose ad is a landing page opened whole: served by their own paths (`/go`), never as a widget's ad. */
export const POP_ZONE_FORMATS: ReadonlySet<string> = new Set(POP_FORMATS);

const language = z.string().refine((l) => LANGUAGE_CODES.has(l), 'must be a lowercase ISO 639-1 language code');
function msgNumber() {
  return { error: (i: { input?: unknown }) => (i.input === undefined ? 'is required' : 'must be a number') };
}
const msgBoolean = () => ({ error: 'must be true or false' });
const traffic = z
  .number(msgNumber())
  .int('must be an integer')
  .min(0, 'must be at least 0')
  .max(10_000_000_000, 'must be at most 10000000000');

export const siteCreateInputSchema = z.object({
  // Normalized here, beside the other fields' checks, so a bad domain is named in the same 400 as they are.
  domain: z
    .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
    .max(300)
    .transform((typed, ctx) => {
      const domain = normalizeDomain(typed);
      if (domain) return domain;
      ctx.addIssue({ code: 'custom', message: 'must be a public domain name such as example.com' });
      return z.NEVER;
    }),
  category: oneOf(SITE_CATEGORY_NAMES),
  language,
  traffic_estimate_daily: traffic,
  ...controlsInputShape,
});
export const siteUpdateInputSchema = z.object({
  id: idSchema,
  category: oneOf(SITE_CATEGORY_NAMES).optional(),
  language: language.optional(),
  traffic_estimate_daily: traffic.optional(),
  ...controlsInputShape,
});

/**
 * What the ads.txt check found (admin/src/verify/ads-txt.ts): `found` the line is in the site's `/ads.txt`,
 * `missing` the file was read and the line is not in it (or there is no file), `unreachable` the file could not
 * be fetched (or the host is not on the public internet).
 */
export const ADS_TXT_STATUSES = ['found', 'missing', 'unreachable'] as const;
export type AdsTxtStatus = (typeof ADS_TXT_STATUSES)[number];

export const siteSchema = z.object({
  id: z.number().int(),
  publisher_id: z.number().int(),
  domain: z.string(),
  category: z.enum(SITE_CATEGORY_NAMES),
  language: z.string(),
  traffic_estimate_daily: z.number().int(),
  verification_code: z.string(),
  status: z.enum(SITE_STATUSES),
  rejection_reason: z.string().nullable(),
  verified_method: z.string().nullable(),
  ads_txt_line: z.string(),
  /** The last check of the site's `/ads.txt` for `ads_txt_line` (docs/demand.md, supply chain); null: never checked. */
  ads_txt_status: z.enum(ADS_TXT_STATUSES).nullable(),
  ads_txt_checked_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  /** Defaults of the site's zones (schemas/src/publisher-controls.ts). */
  ...controlsOutputShape,
});
export type Site = z.infer<typeof siteSchema>;
export type StoredSite = Omit<
  Site,
  'ads_txt_line' | 'ads_txt_status' | 'ads_txt_checked_at' | keyof typeof controlsOutputShape
> &
  StoredControls & {
    /** Absent on sites never checked. */
    ads_txt_status?: AdsTxtStatus;
    ads_txt_checked_at?: string;
  };

/** A publisher's seller settings: its id in sellers.json and ads.txt, and whether sellers.json names it. */
export const sellerSettingsSchema = z.object({
  seller_id: z.string(),
  /** IAB sellers.json `is_confidential`: listed without name or domain. */
  sellers_json_confidential: z.boolean(),
  /** The line each of its sites publishes in `/ads.txt`. */
  ads_txt_line: z.string(),
});
export type SellerSettings = z.infer<typeof sellerSettingsSchema>;
export const sellerSettingsInputSchema = z.object({ sellers_json_confidential: z.boolean() });

/** A zone's ad label when the publisher names none: every ad the widget renders carries one (docs/browser-endpoints.md). */
export const DEFAULT_AD_LABEL = 'Ad';
/** The publisher's wording of the label ("Sponsored", "Anzeige"): it may be reworded, never removed. */
const adLabel = z
  .string({ error: (i) => (i.input === undefined ? 'is required' : 'must be a string') })
  .trim()
  .min(1, 'must not be empty: every ad carries a label')
  .max(24, 'must be at most 24 characters');

const intIn = (min: number, max: number) =>
  z
    .number(msgNumber())
    .int('must be an integer')
    .min(min, `must be at least ${min}`)
    .max(max, `must be at most ${max}`);

const zoneFields = z.object({
  site_id: idSchema,
  name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
  format: oneOf(ZONE_FORMATS),
  fv_corner: oneOf(FV_CORNERS).optional(),
  fv_delay_sec: intIn(0, 600).optional(),
  fv_freq_cap_hours: intIn(0, 168).optional(),
  banner_width: intIn(1, 4000).optional(),
  banner_height: intIn(1, 4000).optional(),
  /** Push zones: when the widget asks for permission (schemas/src/push.ts). */
  push_prompt: pushPromptSchema.optional(),
  /** Popunder and direct-link zones: at most one pop per visitor in this many hours (default 24). */
  pop_freq_cap_hours: intIn(1, 168).optional(),
  /** Popunder zones: the visitor's first click on the page opens the pop (default), or any click until one opens. */
  pop_trigger: oneOf(POP_TRIGGERS).optional(),
  /** Popunder zones: a new tab in front (default), or a window behind the page. */
  pop_new_tab: z.boolean(msgBoolean()).optional(),
  /** Interstitial zones: seconds on the page before the overlay shows unless a same-site link is followed first (default 0). */
  interstitial_delay_sec: intIn(0, 60).optional(),
  /** Interstitial zones: seconds the overlay stays before its close control appears (default 3). */
  interstitial_close_after_sec: intIn(0, 10).optional(),
  /** Interstitial zones: at most one overlay per visitor in this many hours (default 24). */
  interstitial_freq_cap_hours: intIn(1, 168).optional(),
  /** The label every ad the widget renders on this zone carries, 1-24 characters (default "Ad"). */
  ad_label: adLabel.optional(),
  ...controlsInputShape,
});
/** The format's own rules (a banner's size, a floating video's settings) are named with the other fields' problems. */
export const zoneCreateInputSchema = zoneFields.superRefine(
  (zone, ctx) => {
    for (const [field, message] of Object.entries(zoneFieldErrors(zone)))
      ctx.addIssue({ code: 'custom', path: [field], message });
  },
  { when: whenValid('format') },
);
export type ZoneCreateInput = z.infer<typeof zoneCreateInputSchema>;
export const zoneUpdateInputSchema = zoneFields
  .omit({ site_id: true, format: true })
  .partial()
  .extend({ id: idSchema });

export const zoneSchema = z.object({
  id: z.number().int(),
  site_id: z.number().int(),
  publisher_id: z.number().int(),
  subid: z.string(),
  name: z.string(),
  format: z.enum(ZONE_FORMATS),
  fv_corner: z.enum(FV_CORNERS).nullable(),
  fv_delay_sec: z.number().int().nullable(),
  fv_freq_cap_hours: z.number().int().nullable(),
  banner_width: z.number().int().nullable(),
  banner_height: z.number().int().nullable(),
  /** Push zones: when the widget asks for permission; null for other formats. */
  push_prompt: pushPromptSchema.nullable(),
  /** Popunder and direct-link zones: at most one pop per visitor in this many hours; null for other formats. */
  pop_freq_cap_hours: z.number().int().nullable(),
  /** Popunder zones: `first_click` or `any_click`; null for other formats. */
  pop_trigger: z.enum(POP_TRIGGERS).nullable(),
  /** Popunder zones: a new tab in front (true) or a window behind (false); null for other formats. */
  pop_new_tab: z.boolean().nullable(),
  /** Interstitial zones: seconds before the overlay shows on its own; null for other formats. */
  interstitial_delay_sec: z.number().int().nullable(),
  /** Interstitial zones: seconds before the close control appears; null for other formats. */
  interstitial_close_after_sec: z.number().int().nullable(),
  /** Interstitial zones: at most one overlay per visitor in this many hours; null for other formats. */
  interstitial_freq_cap_hours: z.number().int().nullable(),
  /** The label every ad the widget renders on this zone carries ("Ad" unless the publisher reworded it). */
  ad_label: z.string(),
  status: z.enum(ZONE_STATUSES),
  widget_url: z.string(),
  /** Video formats: the zone's VAST 4.0 URL, `{base_url}/vast/<subid>.xml`. */
  vast_url: z.string().optional(),
  /** Video formats: the zone's VAST URL in each version we write (2.0 and 3.0 add `?v=2`, `?v=3`), for players that need one. */
  vast_urls: z.object({ '2.0': z.string(), '3.0': z.string(), '4.0': z.string() }).optional(),
  /** Push zones: our service worker, for the publisher to host at the root of the site as /adnet-sw.js. */
  push_worker_url: z.string().optional(),
  /** Direct-link zones: the link to put behind any link or ad of the publisher's, `{base_url}/go/<subid>`. */
  go_url: z.string().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  /** The zone's own controls; null ones follow its site's (schemas/src/publisher-controls.ts). */
  ...controlsOutputShape,
});
export type Zone = z.infer<typeof zoneSchema>;
/** Stored: `push_prompt` is absent in zones kept before it existed (read as the default). */
export type StoredZone = Omit<
  Zone,
  | 'widget_url'
  | 'vast_url'
  | 'vast_urls'
  | 'push_worker_url'
  | 'go_url'
  | 'push_prompt'
  | 'pop_freq_cap_hours'
  | 'pop_trigger'
  | 'pop_new_tab'
  | keyof InterstitialSettings
  | 'ad_label'
  | keyof typeof controlsOutputShape
> &
  StoredControls & {
    push_prompt?: Zone['push_prompt'];
    // Absent in zones kept before pops existed (none of them a pop zone).
    pop_freq_cap_hours?: Zone['pop_freq_cap_hours'];
    pop_trigger?: Zone['pop_trigger'];
    pop_new_tab?: Zone['pop_new_tab'];
    // Absent in zones kept before interstitials existed (none of them an interstitial zone).
    interstitial_delay_sec?: number | null;
    interstitial_close_after_sec?: number | null;
    interstitial_freq_cap_hours?: number | null;
    // Absent in zones kept before ad labels existed: read as DEFAULT_AD_LABEL.
    ad_label?: string;
  };

/** A pop zone's settings when the publisher leaves them out. */
export const POP_DEFAULTS = { pop_freq_cap_hours: 24, pop_trigger: 'first_click', pop_new_tab: true } as const;

type PopSettings = Pick<Zone, 'pop_freq_cap_hours' | 'pop_trigger' | 'pop_new_tab'>;
/** A zone's pop settings as given, the defaults where absent; null on the formats they are not for. */
export function popSettingsOf(format: string, given: Partial<PopSettings>): PopSettings {
  const popunder = format === 'popunder';
  return {
    pop_freq_cap_hours:
      popunder || format === 'direct_link' ? (given.pop_freq_cap_hours ?? POP_DEFAULTS.pop_freq_cap_hours) : null,
    pop_trigger: popunder ? (given.pop_trigger ?? POP_DEFAULTS.pop_trigger) : null,
    pop_new_tab: popunder ? (given.pop_new_tab ?? POP_DEFAULTS.pop_new_tab) : null,
  };
}

/**
 * An interstitial zone's settings when the publisher leaves them out. The cap is a day: a full-page ad more
 * often than that drives visitors off the publisher's site, and it matches the pop formats' default.
 */
export const INTERSTITIAL_DEFAULTS = {
  interstitial_delay_sec: 0,
  interstitial_close_after_sec: 3,
  interstitial_freq_cap_hours: 24,
} as const;
const INTERSTITIAL_FIELDS = Object.keys(INTERSTITIAL_DEFAULTS) as (keyof typeof INTERSTITIAL_DEFAULTS)[];

type InterstitialSettings = Pick<
  Zone,
  'interstitial_delay_sec' | 'interstitial_close_after_sec' | 'interstitial_freq_cap_hours'
>;
/** A zone's interstitial settings as given, the defaults where absent; null on the other formats. */
export function interstitialSettingsOf(
  format: string,
  given: Partial<Record<keyof InterstitialSettings, number | null | undefined>>,
): InterstitialSettings {
  const on = format === 'interstitial';
  return {
    interstitial_delay_sec: on ? (given.interstitial_delay_sec ?? INTERSTITIAL_DEFAULTS.interstitial_delay_sec) : null,
    interstitial_close_after_sec: on
      ? (given.interstitial_close_after_sec ?? INTERSTITIAL_DEFAULTS.interstitial_close_after_sec)
      : null,
    interstitial_freq_cap_hours: on
      ? (given.interstitial_freq_cap_hours ?? INTERSTITIAL_DEFAULTS.interstitial_freq_cap_hours)
      : null,
  };
}

/** Per-format zone fields: banner sizes must be an IAB size; floating video needs its corner, delay and cap. */
export function zoneFieldErrors(z: Partial<ZoneCreateInput> & { format: string }): Record<string, string> {
  const errors: Record<string, string> = {};
  const banner = z.format === 'banner';
  const fv = z.format === 'floating_video';
  if (banner) {
    if (z.banner_width === undefined) errors.banner_width = 'is required for banner zones';
    if (z.banner_height === undefined) errors.banner_height = 'is required for banner zones';
    if (
      z.banner_width !== undefined &&
      z.banner_height !== undefined &&
      !BANNER_SIZES.some(([w, h]) => w === z.banner_width && h === z.banner_height)
    ) {
      errors.banner_width = `${z.banner_width}x${z.banner_height} is not a supported size; use one of ${BANNER_SIZES.map(([w, h]) => `${w}x${h}`).join(', ')}`;
    }
  } else {
    if (z.banner_width !== undefined) errors.banner_width = 'is only for banner zones';
    if (z.banner_height !== undefined) errors.banner_height = 'is only for banner zones';
  }
  if (z.format !== 'push' && z.push_prompt !== undefined) errors.push_prompt = 'is only for push zones';
  if (z.format !== 'popunder' && z.format !== 'direct_link' && z.pop_freq_cap_hours !== undefined)
    errors.pop_freq_cap_hours = 'is only for popunder and direct_link zones';
  for (const f of ['pop_trigger', 'pop_new_tab'] as const)
    if (z.format !== 'popunder' && z[f] !== undefined) errors[f] = 'is only for popunder zones';
  if (z.format !== 'interstitial')
    for (const f of INTERSTITIAL_FIELDS) if (z[f] !== undefined) errors[f] = 'is only for interstitial zones';
  for (const f of ['fv_corner', 'fv_delay_sec', 'fv_freq_cap_hours'] as const) {
    if (fv && z[f] === undefined) errors[f] = 'is required for floating_video zones';
    if (!fv && z[f] !== undefined) errors[f] = 'is only for floating_video zones';
  }
  return errors;
}

const b64url = (bytes: number, what: string) =>
  z
    .string()
    .refine(
      (s) => /^[A-Za-z0-9_-]+={0,2}$/.test(s) && Buffer.from(s, 'base64url').length === bytes,
      `must be the ${what} (${bytes} bytes, base64url)`,
    );

/** `POST /push/subscribe`: a browser's PushSubscription (its toJSON()) for one push zone. */
export const pushSubscribeSchema = z.object({
  zone: z.string().regex(/^[A-Za-z0-9]{1,32}$/, 'must be a zone subid'),
  subscription: z.object({
    endpoint: httpUrl({ httpsOnly: true }),
    expirationTime: z.number().nullable().optional(),
    keys: z.object({ p256dh: b64url(65, 'P-256 public key'), auth: b64url(16, 'auth secret') }),
  }),
});
export type PushSubscribe = z.infer<typeof pushSubscribeSchema>;

/** `POST /api/pub/zones/{id}/preview`: a token for the zone's live preview (GET /preview/<subid>?t=<token>). */
export const previewTokenSchema = z.object({ token: z.string(), expires_at: z.string() });
export type PreviewToken = z.infer<typeof previewTokenSchema>;
