import { z } from 'zod';
import { decimalPlaces } from './money.ts';

// Target CPA (docs/delivery.md, "Target CPA"): a campaign names the cost per conversion it wants; per zone the
// admin's controller tests, excludes or re-bids, and the engines apply its decisions as config kind
// `campaign_zone_bids`. Plain zod here, no import of api.ts: api.ts builds the campaign's shapes from these.

export const TARGET_CPA_MAX_USD = 10_000;
/** A zone is optimised only once the campaign as a whole has this many conversions: fewer say too little. */
export const CPA_MIN_CONVERSIONS = 10;
export const ZONE_BID_STATES = ['testing', 'excluded', 'optimised'] as const;
export type ZoneBidState = (typeof ZONE_BID_STATES)[number];

const dollars = (max: number) =>
  z
    .number({ error: (i) => (i.input === undefined ? 'is required' : 'must be a number') })
    .positive('must be greater than 0')
    .max(max, `must be at most ${max}`)
    .refine((n) => decimalPlaces(n) <= 2, 'must have at most 2 decimal places');

/** The cost per approved conversion the campaign aims at; its `bid_usd` then is the most it pays. */
export const targetCpaUsd = dollars(TARGET_CPA_MAX_USD).describe(
  `Target cost per conversion in USD (0 < x <= ${TARGET_CPA_MAX_USD}); bid_usd becomes the highest bid`,
);
/** What a zone may spend without a conversion before it is excluded. */
export const cpaTestBudgetUsd = dollars(1_000_000).describe(
  'Spend per zone without a conversion before the zone is excluded (default: twice target_cpa_usd)',
);

/** One zone's decision, as the engines apply it: its own bid (optimised) or none at all (excluded). */
export const zoneBidEntrySchema = z.object({
  zone_id: z.number().int(),
  /** The zone's subid: what the engine's impression names. */
  subid: z.string(),
  state: z.enum(['excluded', 'optimised']),
  /** The zone's bid (the campaign's unit: CPM or CPC), at most the campaign's; 0 when excluded. */
  bid_micro_cents: z.number().int(),
  /** The zone's spend (nano-dollars) when its bid last moved: the controller's memory, not the engines'. */
  stepped_at_spend_nano: z.number().int().optional(),
  stepped_at_conversions: z.number().int().optional(),
  /** Spend and conversions with older evidence decayed (admin/src/domain/target-cpa.ts): the eCPA the bid follows. */
  recent_spend_nano: z.number().optional(),
  recent_conversions: z.number().optional(),
  reason: z.string(),
});
export type ZoneBidEntry = z.infer<typeof zoneBidEntrySchema>;

/** Config kind `campaign_zone_bids`, keyed by campaign id: zones not listed are testing at the campaign's bid. */
export const zoneBidsSchema = z.object({ zones: z.array(zoneBidEntrySchema) });
export type ZoneBids = z.infer<typeof zoneBidsSchema>;
export const NO_ZONE_BIDS: ZoneBids = { zones: [] };

/** `GET /api/adv/campaigns/{id}/zone-bids`: one row per zone the campaign spent on, converted on, or decided. */
export const zoneBidRowSchema = z.object({
  zone_id: z.number().int(),
  site_domain: z.string(),
  state: z.enum(ZONE_BID_STATES),
  /** What the campaign bids on the zone now (micro-cents; 0 when excluded). */
  bid_micro_cents: z.number().int(),
  spend_cents: z.number().int(),
  conversions: z.number().int(),
  /** Spend per conversion in cents; null before the first conversion. */
  ecpa_cents: z.number().int().nullable(),
  reason: z.string(),
});
export type ZoneBidRow = z.infer<typeof zoneBidRowSchema>;
export const zoneBidsAnswerSchema = z.object({
  target_cpa_cents: z.number().int().nullable(),
  cpa_test_budget_cents: z.number().int().nullable(),
  /** Approved conversions counted for the target, all zones. */
  conversions: z.number().int(),
  zones: z.array(zoneBidRowSchema),
});
export type ZoneBidsAnswer = z.infer<typeof zoneBidsAnswerSchema>;

/** Per campaign, summed over every engine (engine/src/store/zone-spend.ts) and the admin's postbacks. */
export const cpaCountsKey = (campaignId: number): string => `cpa:{c:${campaignId}}`;
/** Hash fields of `cpaCountsKey`: a zone's settled spend (nano-dollars) and its approved conversions. */
export const cpaSpendField = (zoneId: number): string => `s:${zoneId}`;
export const cpaConversionField = (zoneId: number): string => `v:${zoneId}`;
/** Counts live as long as a click can still convert, renewed by every write. */
export const CPA_COUNTS_TTL_MS = 30 * 86_400_000;

/** Per zone from the hash of `cpaCountsKey` (fields `s:` and `v:`). */
export function parseCpaCounts(hash: Record<string, string>): Map<number, { spendNano: number; conversions: number }> {
  const zones = new Map<number, { spendNano: number; conversions: number }>();
  for (const [field, value] of Object.entries(hash)) {
    const zoneId = Number(field.slice(2));
    if (!Number.isInteger(zoneId)) continue;
    let z = zones.get(zoneId);
    if (!z) zones.set(zoneId, (z = { spendNano: 0, conversions: 0 }));
    if (field.startsWith('s:')) z.spendNano += Number(value);
    else if (field.startsWith('v:')) z.conversions += Number(value);
  }
  return zones;
}
