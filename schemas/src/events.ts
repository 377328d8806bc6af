import { z } from 'zod';

/** Every fact the engines record, one shape for the stream and the event store. */
/** `imp`: VAST pixel of an OpenRTB bid (the win is what counts); `impression`: our own zones' served ad; `click`; `vast`: a player's tracking event or error (`reason`). */
export const EVENT_TYPES = ['bid', 'nobid', 'win', 'imp', 'impression', 'click', 'vast', 'conversion'] as const;

export const engineEventSchema = z.object({
  /** Unique per event; the event store deduplicates on it. */
  id: z.string(),
  type: z.enum(EVENT_TYPES),
  /** Milliseconds since the epoch. */
  ts: z.number().int(),
  engine: z.string(),
  auction_id: z.string().optional(),
  imp_id: z.string().optional(),
  bid_id: z.string().optional(),
  partner_id: z.number().int().optional(),
  campaign_id: z.number().int().optional(),
  creative_id: z.number().int().optional(),
  advertiser_id: z.number().int().optional(),
  /** Our bid (bid events) or the clearing price (win events), CPM in micro-cents. */
  price_micro_cents: z.number().int().optional(),
  /** What the advertiser was charged, in nano-dollars. */
  charge_nano: z.number().int().optional(),
  /** No-bid reason: a filter name, `no_candidates`, `budget`, `deadline`, `currency`. */
  reason: z.string().optional(),
  country: z.string().optional(),
  device: z.string().optional(),
  site_domain: z.string().optional(),
  publisher_id: z.number().int().optional(),
  site_id: z.number().int().optional(),
  zone_id: z.number().int().optional(),
  /** Clicks: not billed when set; `reason` names the fraud rule. */
  invalid: z.boolean().optional(),
  click_id: z.string().optional(),
});
export type EngineEvent = z.infer<typeof engineEventSchema>;
