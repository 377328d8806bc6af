import { z } from 'zod';
import { VERTICALS, httpUrlSchema, oneOf, usdAmount } from './api.ts';
import { normalizeDomain } from './domain-name.ts';
import { usdToMicroCents } from './money.ts';
import { FALLBACK_TYPES } from './formats.ts';

// A publisher's controls over what its inventory shows. A site's are the defaults of its zones; a
// zone's, where set, override them field by field (docs: admin/docs/api.md, publisher controls).

export type Vertical = (typeof VERTICALS)[number];
export { FALLBACK_TYPES };
/** The largest fallback HTML, in UTF-8 bytes: it travels in every unfilled `/imp` answer. */
export const FALLBACK_HTML_MAX_BYTES = 16_384;
export const MAX_BLOCKED_DOMAINS = 1_000;

/** What an unfilled zone shows: `value` is the HTML or the URL; null for `none`. */
export const fallbackSchema = z.object({ type: z.enum(FALLBACK_TYPES), value: z.string().nullable() });
export type Fallback = z.infer<typeof fallbackSchema>;

const fallbackValue = {
  html: z
    .string({
      error: (i) =>
        i.input === undefined || i.input === null ? 'is required for an html fallback' : 'must be a string',
    })
    .min(1, 'must not be empty')
    .refine(
      (html) => new TextEncoder().encode(html).length <= FALLBACK_HTML_MAX_BYTES,
      `must be at most ${FALLBACK_HTML_MAX_BYTES} bytes`,
    ),
  url: httpUrlSchema,
  // Whatever a form sends beside `none` is dropped.
  none: z.unknown().transform(() => null),
} as const;

const fallbackValueText = `The HTML (at most ${FALLBACK_HTML_MAX_BYTES} bytes of UTF-8) for html, an http(s) URL for url; ignored for none`;
const fallbackInput = z
  .object({ type: oneOf(FALLBACK_TYPES), value: z.unknown().optional().describe(fallbackValueText) })
  .transform((f, ctx): Fallback => {
    const parsed = fallbackValue[f.type].safeParse(f.value);
    if (!parsed.success) {
      for (const issue of parsed.error.issues)
        ctx.addIssue({ code: 'custom', path: ['value', ...issue.path], message: issue.message });
      return z.NEVER;
    }
    return { type: f.type, value: typeof parsed.data === 'string' ? parsed.data : null };
  });

/** An advertiser's domain as the publisher types it, compared as the engine reads landing hosts (without `www.`). */
const blockedDomain = z
  .string({ error: 'must be a domain name such as example.com' })
  .max(300)
  .transform((typed, ctx) => {
    const domain = normalizeDomain(typed)?.replace(/^www\./, '');
    if (domain) return domain;
    ctx.addIssue({ code: 'custom', message: 'must be a domain name such as example.com' });
    return z.NEVER;
  });

/** The controls' input fields, for site and zone create and PATCH; null clears one (a zone then follows its site). */
export const controlsInputShape = {
  floor_cpm_usd: usdAmount({ min: 0, max: 1000, places: 5 }).nullable().optional(),
  blocked_verticals: z
    .array(oneOf(VERTICALS))
    .max(VERTICALS.length)
    .transform((a) => [...new Set(a)])
    .nullable()
    .optional(),
  blocked_advertiser_domains: z
    .array(blockedDomain)
    .max(MAX_BLOCKED_DOMAINS, `must have at most ${MAX_BLOCKED_DOMAINS} entries`)
    .transform((a) => [...new Set(a)])
    .nullable()
    .optional(),
  fallback: fallbackInput.nullable().optional(),
};
type ControlsInput = { [K in keyof typeof controlsInputShape]?: z.infer<(typeof controlsInputShape)[K]> };

/** The controls in the API's answers: null where not set. */
export const controlsOutputShape = {
  floor_cpm_usd: z.number().nullable(),
  blocked_verticals: z.array(z.enum(VERTICALS)).nullable(),
  blocked_advertiser_domains: z.array(z.string()).nullable(),
  fallback: fallbackSchema.nullable(),
};

/** As kept: the floor in micro-cents. Sites and zones stored before controls existed have none of them. */
export type StoredControls = {
  floor_cpm_micro_cents?: number | null;
  blocked_verticals?: Vertical[] | null;
  blocked_advertiser_domains?: string[] | null;
  fallback?: Fallback | null;
};

/** The stored fields an input sets (absent ones are left out, so a PATCH changes only what it names). */
function storedControls(input: ControlsInput): StoredControls {
  const out: StoredControls = {};
  if (input.floor_cpm_usd !== undefined)
    out.floor_cpm_micro_cents = input.floor_cpm_usd === null ? null : usdToMicroCents(input.floor_cpm_usd);
  if (input.blocked_verticals !== undefined) out.blocked_verticals = input.blocked_verticals;
  if (input.blocked_advertiser_domains !== undefined) out.blocked_advertiser_domains = input.blocked_advertiser_domains;
  if (input.fallback !== undefined) out.fallback = input.fallback;
  return out;
}

/** An input's controls, as stored, apart from its other fields. */
export function splitControls<T extends ControlsInput>(
  input: T,
): { controls: StoredControls; rest: Omit<T, keyof ControlsInput> } {
  const { floor_cpm_usd, blocked_verticals, blocked_advertiser_domains, fallback, ...rest } = input;
  return { controls: storedControls({ floor_cpm_usd, blocked_verticals, blocked_advertiser_domains, fallback }), rest };
}

/** The stored controls as the API answers them. */
export function controlsOut(s: StoredControls) {
  const floor = s.floor_cpm_micro_cents;
  return {
    floor_cpm_usd: floor === null || floor === undefined ? null : floor / 100_000,
    blocked_verticals: s.blocked_verticals ?? null,
    blocked_advertiser_domains: s.blocked_advertiser_domains ?? null,
    fallback: s.fallback ?? null,
  };
}

/** What a zone applies: each of its own settings, else its site's, else none. */
export interface EffectiveControls {
  floorMicroCents: number;
  blockedVerticals: readonly Vertical[];
  blockedDomains: readonly string[];
  /** Null when an unfilled zone shows nothing. */
  fallback: Fallback | null;
}

const own = <T>(zone: T | null | undefined, site: T | null | undefined): T | undefined => zone ?? site ?? undefined;

/** The precedence: a zone's setting wins; one it leaves unset (null) is its site's; one neither sets is the network's default. */
export function effectiveControls(zone: StoredControls, site: StoredControls | undefined): EffectiveControls {
  const fallback = own(zone.fallback, site?.fallback);
  return {
    floorMicroCents: own(zone.floor_cpm_micro_cents, site?.floor_cpm_micro_cents) ?? 0,
    blockedVerticals: own(zone.blocked_verticals, site?.blocked_verticals) ?? [],
    blockedDomains: own(zone.blocked_advertiser_domains, site?.blocked_advertiser_domains) ?? [],
    fallback: fallback && fallback.type !== 'none' ? fallback : null,
  };
}
