import { z } from 'zod';
import { COUNTRY_CODES } from './geo.ts';
import { decimalPlaces } from './money.ts';

// An advertiser's control over where a campaign serves: a list of our zones and sites it serves only on
// (`include`) or never on (`exclude`), and bid multipliers per zone, site or country
// (docs/delivery.md, "Traffic sources and bid adjustments"). Plain zod here, no import of api.ts: api.ts
// builds the campaign's shapes from these.

export const SOURCE_MODES = ['exclude', 'include'] as const;
export type SourceMode = (typeof SOURCE_MODES)[number];
/** Zones and sites together, per campaign. */
export const MAX_SOURCE_ENTRIES = 10_000;
export const MAX_BID_ADJUSTMENTS = 1_000;
export const MULTIPLIER_MIN = 0.1;
export const MULTIPLIER_MAX = 10;
export const MULTIPLIER_PLACES = 3;

const SUBID = /^[A-Za-z0-9]{1,32}$/;
const subid = z
  .string({ error: 'must be a zone subid' })
  .regex(SUBID, 'must be a zone subid (1-32 letters and digits)');
const siteId = z
  .number({ error: 'must be a site id (a whole number)' })
  .int('must be a site id (a whole number)')
  .positive('must be a site id (a whole number)')
  .max(2 ** 31 - 1, 'must be a site id (a whole number)');
const country = z
  .string({ error: 'must be an ISO 3166-1 alpha-2 country code' })
  .transform((c) => c.toLowerCase())
  .refine((c) => COUNTRY_CODES.has(c), 'must be an ISO 3166-1 alpha-2 country code');

const TOO_MANY = `must have at most ${MAX_SOURCE_ENTRIES} entries (zones and sites together)`;
export const tooManySources = (count: number): string => `${TOO_MANY}; this would make ${count}`;

/** Lists as a client sends them: each entry once, in the order first given. */
export const sourceEntriesShape = {
  zones: z
    .array(subid)
    .max(MAX_SOURCE_ENTRIES, TOO_MANY)
    .transform((a) => [...new Set(a)]),
  sites: z
    .array(siteId)
    .max(MAX_SOURCE_ENTRIES, TOO_MANY)
    .transform((a) => [...new Set(a)]),
};

export const sourceListInputSchema = z
  .object({
    mode: z.enum(SOURCE_MODES, {
      error: (i) => (i.input === undefined ? 'is required' : `must be one of: ${SOURCE_MODES.join(', ')}`),
    }),
    zones: sourceEntriesShape.zones.default([]),
    sites: sourceEntriesShape.sites.default([]),
  })
  .superRefine((s, ctx) => {
    const n = s.zones.length + s.sites.length;
    if (n > MAX_SOURCE_ENTRIES) ctx.addIssue({ code: 'custom', message: tooManySources(n) });
  })
  .describe(
    `Zones (subids) and sites (ids) the campaign serves only on (include) or never on (exclude); at most ${MAX_SOURCE_ENTRIES} entries`,
  );

export const sourceListSchema = z.object({
  mode: z.enum(SOURCE_MODES),
  zones: z.array(z.string()),
  sites: z.array(z.number().int()),
});
export type SourceList = z.infer<typeof sourceListSchema>;
/** What a campaign without a list has: nothing excluded. */
export const NO_SOURCES: SourceList = { mode: 'exclude', zones: [], sites: [] };

/** Same mode and entries in the same order (a no-op edit writes nothing; an engine keeps what it compiled). */
export function sameSourceList(a: SourceList, b: SourceList): boolean {
  if (a.mode !== b.mode || a.zones.length !== b.zones.length || a.sites.length !== b.sites.length) return false;
  for (let i = 0; i < a.zones.length; i++) if (a.zones[i] !== b.zones[i]) return false;
  for (let i = 0; i < a.sites.length; i++) if (a.sites[i] !== b.sites[i]) return false;
  return true;
}

/** `POST .../sources/add` and `.../sources/remove`: entries to add to or take from the list, its mode unchanged. */
export const sourceEntriesInputSchema = z.object({
  zones: sourceEntriesShape.zones.optional(),
  sites: sourceEntriesShape.sites.optional(),
});

// ---- bid adjustments

const multiplier = z
  .number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a number') })
  .min(MULTIPLIER_MIN, `must be at least ${MULTIPLIER_MIN}`)
  .max(MULTIPLIER_MAX, `must be at most ${MULTIPLIER_MAX}`)
  .refine((n) => decimalPlaces(n) <= MULTIPLIER_PLACES, `must have at most ${MULTIPLIER_PLACES} decimal places`);

const ONE_KEY = 'must name exactly one of zone, site, country';
const bidAdjustmentInput = z
  .strictObject({ zone: subid.optional(), site: siteId.optional(), country: country.optional(), multiplier })
  .superRefine((a, ctx) => {
    const keys = [a.zone, a.site, a.country].filter((k) => k !== undefined).length;
    if (keys !== 1) ctx.addIssue({ code: 'custom', message: ONE_KEY });
  });

export const bidAdjustmentSchema = z.object({
  zone: z.string().optional(),
  site: z.number().int().optional(),
  country: z.string().optional(),
  multiplier: z.number(),
});
export type BidAdjustment = z.infer<typeof bidAdjustmentSchema>;

/** What an adjustment applies to, as one string: two entries with the same key are a contradiction. */
export const adjustmentKey = (a: BidAdjustment): string =>
  a.zone !== undefined ? `zone ${a.zone}` : a.site !== undefined ? `site ${a.site}` : `country ${a.country ?? ''}`;

export const bidAdjustmentsInputSchema = z
  .array(bidAdjustmentInput)
  .max(MAX_BID_ADJUSTMENTS, `must have at most ${MAX_BID_ADJUSTMENTS} entries`)
  .superRefine((list, ctx) => {
    const seen = new Set<string>();
    for (const a of list) {
      const key = adjustmentKey(a);
      if (seen.has(key)) ctx.addIssue({ code: 'custom', message: `has two entries for ${key}` });
      seen.add(key);
    }
  })
  .describe(
    `Bid multipliers (${MULTIPLIER_MIN}-${MULTIPLIER_MAX}) by zone subid, site id or country; the most specific applies (zone, then site, then country); at most ${MAX_BID_ADJUSTMENTS}`,
  );

// ---- warnings

/** Something accepted that may not do what the advertiser expects: entries naming zones or sites we do not know (yet). */
export const warningSchema = z.object({
  field: z.string(),
  message: z.string(),
  values: z.array(z.union([z.string(), z.number()])),
});
export type Warning = z.infer<typeof warningSchema>;

/** Multiplier in thousandths, the integer the engine multiplies prices with. */
export const multiplierMilli = (m: number): number => Math.round(m * 1000);

/** `price` (micro-cents) times a multiplier in thousandths, rounded down: an adjustment never charges a fraction more. */
export const adjustedMicroCents = (price: number, milli: number): number =>
  milli === 1000 ? price : Math.floor((price * milli) / 1000);

// ---- zone ids to subids, for building lists from the statistics (which name zones by id)

export const zoneLookupInputSchema = z.object({
  ids: z
    .string({ error: 'must be zone ids, comma-separated' })
    .regex(/^\d{1,10}(,\d{1,10}){0,999}$/, 'must be at most 1000 zone ids, comma-separated')
    .transform((s) => [...new Set(s.split(',').map(Number))]),
});
export const zoneLookupSchema = z.object({
  zones: z.array(
    z.object({
      id: z.number().int(),
      subid: z.string(),
      site_id: z.number().int(),
      /** The zone's name, as its publisher gave it: what a placement is called beside its site's domain. */
      name: z.string(),
      /** The site's domain ('' for a site since deleted). */
      domain: z.string(),
    }),
  ),
});
