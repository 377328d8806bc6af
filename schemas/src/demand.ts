import { z } from 'zod';
import { idSchema } from './api.ts';
import { CAMPAIGN_FORMATS } from './formats.ts';
import { COUNTRY_CODES } from './geo.ts';

// Demand partners: DSPs our publishers' impressions are auctioned to over OpenRTB 2.5 or 2.6 (the supply side).
// The endpoint's scheme and host are checked again at call time (engine/src/demand/dsp-client.ts):
// https only, public addresses only; `DEMAND_ALLOW_LOOPBACK=1` lets http on loopback through for
// tests and local development.

/** The spec's auction timeout: no partner may take longer than the whole auction. */
export const DEMAND_MAX_TIMEOUT_MS = 200;

/** What this process lets an endpoint be: `DEMAND_ALLOW_LOOPBACK` adds http on loopback to https. */
export interface DemandEndpointRules {
  allowLoopback: boolean;
}

const LOOPBACK_HOST = /^(localhost|127(\.\d{1,3}){3}|\[::1\])$/;

/** Without rules (the documented shape), http is let through; the procedures check with this process's rules. */
const endpointOf = (rules?: DemandEndpointRules) =>
  z
    .string()
    .trim()
    .max(2048, 'must be at most 2048 characters')
    .refine((s) => {
      try {
        const u = new URL(s);
        if (u.username !== '' || u.password !== '' || u.hash !== '') return false;
        if (u.protocol === 'https:') return true;
        return (
          u.protocol === 'http:' && (rules === undefined || (rules.allowLoopback && LOOPBACK_HOST.test(u.hostname)))
        );
      } catch {
        return false;
      }
    }, 'must be an https URL without credentials or fragment');

const formats = z
  .array(z.enum(CAMPAIGN_FORMATS, { error: `must be one of ${CAMPAIGN_FORMATS.join(', ')}` }))
  .min(1, 'must list at least one format')
  .transform((a) => [...new Set(a)]);
const countries = z
  .array(z.string().refine((c) => COUNTRY_CODES.has(c), 'must be a lowercase ISO 3166-1 alpha-2 country code'))
  .max(250)
  .transform((a) => [...new Set(a)]);
/**
 * The OpenRTB version a partner speaks (`x-openrtb-version` of our requests): 2.5 (the default) gets the supply
 * chain in `source.ext.schain`, 2.6 in `source.schain` (docs/demand.md, supply chain).
 */
export const DEMAND_OPENRTB_VERSIONS = ['2.5', '2.6'] as const;
export type DemandOpenRtbVersion = (typeof DEMAND_OPENRTB_VERSIONS)[number];
const openRtbVersion = z.enum(DEMAND_OPENRTB_VERSIONS, {
  error: `must be one of ${DEMAND_OPENRTB_VERSIONS.join(', ')}`,
});
const qps = z.number().int('must be an integer').min(1, 'must be at least 1').max(1_000_000, 'must be at most 1000000');
const timeout = z
  .number()
  .int('must be an integer')
  .min(10, 'must be at least 10')
  .max(DEMAND_MAX_TIMEOUT_MS, `must be at most ${DEMAND_MAX_TIMEOUT_MS}`);

/**
 * A demand partner's fields, with the endpoint checked against `rules` (this process's configuration)
 * together with every other field, so one 400 names them all.
 */
export function demandPartnerInputSchemas(rules?: DemandEndpointRules) {
  const endpoint = endpointOf(rules);
  const create = z.object({
    name: z.string().trim().min(1, 'must not be empty').max(100, 'must be at most 100 characters'),
    endpoint,
    qps_limit: qps.default(100),
    timeout_ms: timeout.default(150),
    formats,
    /** Lowercase alpha-2; absent or empty: every country. */
    countries: countries.optional(),
    openrtb_version: openRtbVersion.default('2.5'),
  });
  const update = z.object({
    id: idSchema,
    name: create.shape.name.optional(),
    endpoint: endpoint.optional(),
    qps_limit: qps.optional(),
    timeout_ms: timeout.optional(),
    formats: formats.optional(),
    countries: countries.optional(),
    openrtb_version: openRtbVersion.optional(),
  });
  return { create, update };
}
const documented = demandPartnerInputSchemas();
export const demandPartnerCreateInputSchema = documented.create;
export const demandPartnerUpdateInputSchema = documented.update;

export const DEMAND_PARTNER_STATUSES = ['active', 'disabled'] as const;
export const demandPartnerSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  endpoint: z.string(),
  qps_limit: z.number().int(),
  timeout_ms: z.number().int(),
  formats: z.array(z.enum(CAMPAIGN_FORMATS)),
  countries: z.array(z.string()),
  /** Partners stored before the setting existed speak 2.5. */
  openrtb_version: z.enum(DEMAND_OPENRTB_VERSIONS).default('2.5'),
  status: z.enum(DEMAND_PARTNER_STATUSES),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DemandPartner = z.infer<typeof demandPartnerSchema>;

/** Why a partner's answer was discarded (counted per partner). */
export const DEMAND_DISCARDS = [
  'invalid_json',
  'invalid_response',
  'wrong_id',
  'bad_price',
  'under_floor',
  'unknown_imp',
  'no_markup',
  'wrong_currency',
  // A native or push answer's landing that is not a URL our campaigns' landings could have, or that the publisher blocks.
  'bad_landing',
  // A push answer's icon that is not a plain https URL.
  'bad_icon',
  // A video answer in a VAST version newer than the player asked for (`/vast/<subid>.xml?v=2|3`): it could not play it.
  'vast_too_new',
] as const;
export type DemandDiscard = (typeof DEMAND_DISCARDS)[number];

/** One partner's health as the engines count it (Redis hash `dmd:stats:<id>`, summed over engines). */
export const DEMAND_COUNTERS = [
  'requests',
  'bids',
  'wins',
  'impressions',
  /**
   * Clicks on partners' ads through our click redirect (native cards, push notifications): valid ones
   * (the click rules of the ad's surface, after its counted impression, the first per auction), and the others.
   */
  'clicks',
  'invalid_clicks',
  'nobids',
  'timeouts',
  'late',
  'errors',
  'skipped_qps',
  'skipped_open',
  'revenue_nano',
  ...DEMAND_DISCARDS,
] as const;
export type DemandCounter = (typeof DEMAND_COUNTERS)[number];
/**
 * A partner's counters of one UTC day (`YYYY-MM-DD`), summed over engines: what admin statistics grouped
 * by `demand` read for bid requests, bids, wins, timeouts and errors. Aggregated counters, not events: a
 * bid request per impression and partner would outnumber every other event (docs/demand.md).
 */
export const demandDayKey = (partnerId: number, day: string): string => `dmd:day:${partnerId}:${day}`;
/** Kept past the longest statistics range (366 days). */
export const DEMAND_DAY_TTL_SECONDS = 400 * 86_400;
export const demandPartnerHealthSchema = z.object({
  counters: z.record(z.string(), z.number()),
  /** The circuit breaker as the engines last reported it. */
  circuit: z.enum(['closed', 'open', 'half_open']),
});
export const demandPartnerWithHealthSchema = demandPartnerSchema.extend({ health: demandPartnerHealthSchema });
