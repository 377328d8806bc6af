import { z } from 'zod';
import { CAMPAIGN_FORMATS } from './formats.ts';

/**
 * Why an impression got no bid. Each auction filter's name is one of these, and
 * so is each no-bid counter's label; statistics group no-bids by them.
 */
export const NO_BID_REASONS = [
  /** Nothing of the slot's format and size for the country. */
  'no_candidates',
  'language',
  'device_type',
  /** The campaign targets other operating systems (`os_include`). */
  'os',
  /** The campaign targets other browsers (`browser_include`). */
  'browser',
  /** The campaign targets other connection types (`connection_types`); only OpenRTB requests say theirs. */
  'connection_type',
  /** `bcat` blocks the campaign vertical's IAB category. */
  'blocked_category',
  /** `badv` names the landing domain (or a parent of it). */
  'blocked_advertiser',
  /** Our publisher blocks the campaign's vertical on this zone or site (`blocked_verticals`). */
  'zone_blocked_vertical',
  /** Our publisher blocks the landing domain (or a parent of it) on this zone or site (`blocked_advertiser_domains`). */
  'zone_blocked_advertiser',
  /** Every candidate ranks below the floor: the partner's `bidfloor` or our zone's `floor_cpm_usd`, whichever is higher. */
  'below_floor',
  /** Every eligible campaign or advertiser is out of budget here. */
  'budget',
  /** The request is not in USD. */
  'currency',
  /** The auction finished after `min(tmax, AUCTION_TIMEOUT_MS)`. */
  'deadline',
  /** `imp.tagid` names a paused zone, or one on a site not approved. */
  'zone_not_serving',
  /** `site.id` names one of our sites that is not approved. */
  'site_not_approved',
  /** The user agent is a known bot, crawler, headless browser or HTTP library (or, from a browser, absent). */
  'bot_traffic',
  /** A native impression asks for an asset (title, image, text) none of the native creatives can fill as asked. */
  'native_assets',
  /** Every eligible campaign sat this auction out to spread its daily budget over the day (even pacing). */
  'pacing',
  /** Widget and VAST requests only: one address asked this zone for more ads in a minute than a person could look at. */
  'address_flood',
  /** Widget requests only: one browser fingerprint asked this zone for more ads in a minute than a person could look at. */
  'fingerprint_flood',
  /** Widget requests only: the browser says the page is not on the zone's site (`Origin`, else `Referer`). */
  'foreign_origin',
  // The campaign's schedule (schemas/src/schedule.ts): before `start_at`, from `end_at` on, outside its dayparting hours.
  'not_started',
  'ended',
  'outside_schedule',
  /** The user has had the campaign's `frequency_cap` impressions in its period. */
  'frequency_cap',
  // Exchange side of issue 19 (docs/openrtb.md).
  /** `imp.pmp.private_auction: 1` and no deal of the imp is ours for this partner (known, offered by it, with campaigns). */
  'private_auction',
  /** A frequency-capped campaign skips traffic whose privacy signals rule out user-level caps (COPPA, GDPR without consent, a CCPA opt-out). */
  'privacy',
  /** The video creative's `duration_s` is outside the imp's `minduration`/`maxduration`. */
  'video_duration',
  /** The campaign's source list keeps it off this zone or site (excluded, or not on its include list). */
  'source_list',
  /** The campaign's target CPA excluded this zone: it spent its test budget without a conversion (docs/delivery.md). */
  'cpa_excluded',
  /** The campaign's audiences keep it from this viewer: a member of none it includes, or of one it excludes (docs/audiences.md). */
  'audience',
] as const;
export const noBidReasonSchema = z.enum(NO_BID_REASONS);
export type NoBidReason = z.infer<typeof noBidReasonSchema>;

const int = z.number().int();

/**
 * How the traffic reached us, the statistics' `integration` (docs/events-and-stats.md): our widget script
 * (`/imp`), a VAST player on a zone's VAST URL (`/vast`), a partner's OpenRTB request (`/openrtb/bid`), a
 * publisher's Prebid.js (`/hb/bid`), a web push notification, a visit of a direct-link zone's URL (`/go`), or a
 * pop opened by the widget of a popunder zone (`/imp`, counted by its beacon `/b`).
 */
export const INTEGRATIONS = ['widget', 'vast', 'openrtb', 'prebid', 'push', 'direct_link', 'popunder'] as const;
export const integrationSchema = z.enum(INTEGRATIONS);
export type Integration = z.infer<typeof integrationSchema>;

/**
 * Every event: unique id (the event store deduplicates on it), when (ms since the epoch) and which process;
 * `integration` and `format` wherever the event belongs to one (absent in events written before they existed).
 */
const common = {
  id: z.string(),
  ts: int,
  engine: z.string(),
  integration: integrationSchema.optional(),
  /**
   * The format of the ad as served, the statistics' `format`: the zone's on our zones (a banner campaign's
   * creative in an interstitial zone is an interstitial, a popunder campaign's visit of a direct-link zone a
   * direct link), the campaign's on an exchange's impression. Absent where no ad format applies (an exchange's
   * bid request) and in events written before it existed.
   */
  format: z.enum(CAMPAIGN_FORMATS).optional(),
};
/**
 * Where it was shown: our publisher's zone, when it was one; `source`, the placement by name (our site's
 * registrable domain, else the exchange's `site.domain` or `app.bundle`; engine/src/inventory/source.ts).
 */
const inventory = {
  publisher_id: int.optional(),
  site_id: int.optional(),
  zone_id: int.optional(),
  source: z.string().max(64).optional(),
};
/** Who saw it, as far as the engine could tell (`os` and `browser`: the families campaigns target, schemas/src/api.ts). */
const audience = {
  country: z.string().optional(),
  device: z.string().optional(),
  os: z.string().optional(),
  browser: z.string().optional(),
};
/** Whose ad it is. */
const ad = { campaign_id: int, creative_id: int, advertiser_id: int };
/** Everything an event of one served ad carries: the bid it came from, whose ad, where and to whom. */
const ofBid = { ...common, ...ad, ...inventory, ...audience, bid_id: z.string() };

export const bidEventSchema = z.object({
  type: z.literal('bid'),
  ...common,
  ...ad,
  ...inventory,
  ...audience,
  auction_id: z.string(),
  imp_id: z.string(),
  bid_id: z.string(),
  partner_id: int,
  /** Our bid, CPM in micro-cents. */
  price_micro_cents: int,
  site_domain: z.string().optional(),
});
export const noBidEventSchema = z.object({
  type: z.literal('nobid'),
  ...common,
  ...inventory,
  ...audience,
  reason: noBidReasonSchema,
  auction_id: z.string().optional(),
  imp_id: z.string().optional(),
  partner_id: int.optional(),
  site_domain: z.string().optional(),
});
/** A partner's win notice: the clearing price is charged. */
export const winEventSchema = z.object({
  type: z.literal('win'),
  ...ofBid,
  partner_id: int,
  /** The clearing price, CPM in micro-cents. */
  price_micro_cents: int,
  /** What the advertiser was charged, in nano-dollars. */
  charge_nano: int,
});
/** The VAST impression pixel of an OpenRTB bid (the win notice already charged it). */
export const impEventSchema = z.object({
  type: z.literal('imp'),
  ...ofBid,
  partner_id: int,
  charge_nano: int,
});
/** An ad of ours shown on one of our zones: served display ad, started video, delivered push. */
export const impressionEventSchema = z.object({
  type: z.literal('impression'),
  ...ofBid,
  partner_id: int.optional(),
  price_micro_cents: int.optional(),
  charge_nano: int,
});
export const clickEventSchema = z.object({
  type: z.literal('click'),
  ...ofBid,
  click_id: z.string(),
  charge_nano: int,
  /** Not billed when set; `reason` names the fraud rule it broke. */
  invalid: z.boolean(),
  reason: z.string().optional(),
  /** A click on a demand partner's ad (docs/demand.md): no campaign, creative or advertiser of ours (all 0), never billed. */
  demand_partner_id: int.positive().optional(),
});
/** A player's playback event or VAST error (`reason`: start, firstQuartile, ..., `error:<code>`). */
export const vastEventSchema = z.object({
  type: z.literal('vast'),
  ...common,
  ...ad,
  ...inventory,
  bid_id: z.string(),
  reason: z.string(),
});
/**
 * A bid, win notice, impression pixel or render beacon kept apart from the statistics and never charged:
 * too late for its ticket (`expired`), from an OpenRTB `test: 1` request (`test`), or a beacon from
 * another network or browser than the one the ad was served to (`mismatch`), or counted after its bid's
 * hold lapsed when the budget or balance no longer covers it or the campaign stopped (`budget_exhausted`,
 * `balance_exhausted`, `campaign_not_active`).
 */
export const uncountedEventSchema = z.object({
  type: z.literal('uncounted'),
  ...ofBid,
  partner_id: int,
  /** What it would have been. */
  of: z.enum(['bid', 'win', 'imp', 'impression']),
  reason: z.enum(['expired', 'test', 'mismatch', 'campaign_not_active', 'budget_exhausted', 'balance_exhausted']),
});
/** A widget ad that has been at least half in view for a second (the MRC rule), once per ad. */
export const viewableEventSchema = z.object({
  type: z.literal('viewable'),
  ...ofBid,
});
/** An unfilled display zone of ours answered with its publisher's fallback (`reason`: why nothing filled it). */
export const fallbackEventSchema = z.object({
  type: z.literal('fallback'),
  ...common,
  ...inventory,
  ...audience,
  reason: noBidReasonSchema,
});
/**
 * A demand partner's (DSP's) ad counted on one of our zones by our impression tracker, once per auction
 * (docs/demand.md): publisher revenue at the clearing price, as our own impressions are. No advertiser
 * of ours: `demand_partner_id` says who bought it.
 */
export const demandImpressionEventSchema = z.object({
  type: z.literal('demand_impression'),
  ...common,
  ...inventory,
  ...audience,
  demand_partner_id: int.positive(),
  auction_id: z.string(),
  /** The clearing price, CPM in micro-cents. */
  price_micro_cents: int,
  /** What the partner pays for it, in nano-dollars: the publisher's share is taken from it as from our campaigns' spend. */
  charge_nano: int,
});
/** A conversion, when it first becomes approved (the admin writes it). */
export const conversionEventSchema = z.object({
  type: z.literal('conversion'),
  ...common,
  ...ad,
  ...inventory,
  ...audience,
  /** The payout the tracker reported when it approved it, in cents: the advertiser's revenue (ROI). Absent before it was recorded. */
  payout_cents: int.nonnegative().optional(),
});

/** Every fact the product records, one shape per type, for the stream and the event store. */
export const engineEventSchema = z.discriminatedUnion('type', [
  bidEventSchema,
  noBidEventSchema,
  winEventSchema,
  impEventSchema,
  impressionEventSchema,
  clickEventSchema,
  vastEventSchema,
  uncountedEventSchema,
  viewableEventSchema,
  conversionEventSchema,
  fallbackEventSchema,
  demandImpressionEventSchema,
]);
export type EngineEvent = z.infer<typeof engineEventSchema>;
export type EventType = EngineEvent['type'];
export type EventOf<T extends EventType> = Extract<EngineEvent, { type: T }>;
export const EVENT_TYPES: readonly EventType[] = engineEventSchema.options.map((o) => o.shape.type.value);

type KeysOfUnion<T> = T extends unknown ? keyof T : never;
type FieldOf<T, K extends PropertyKey> = T extends unknown ? (K extends keyof T ? T[K] : never) : never;
/** Any event seen as the flat row of the event store: every field of every type, each optional. */
export type EventFields = { [K in KeysOfUnion<EngineEvent>]?: FieldOf<EngineEvent, K> };
