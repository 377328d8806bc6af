import { z } from 'zod';
import { idSchema, usdAmount } from './api.ts';

// Private-marketplace deals (docs/openrtb.md, deals): an admin names which partners may offer a deal
// and which of our campaigns may bid on it, at or above its floor.

/** The deal id partners send in `imp.pmp.deals[].id`: printable ASCII without spaces, as exchanges issue them. */
export const dealIdSchema = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, 'must not be empty')
  .max(128, 'must be at most 128 characters')
  .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces');

const idList = z
  .array(idSchema)
  .min(1, 'must list at least one id')
  .max(1_000, 'must have at most 1000 entries')
  .transform((a) => [...new Set(a)].sort((x, y) => x - y));

export const dealCreateInputSchema = z.object({
  id: dealIdSchema,
  floor_usd: usdAmount({ min: 0, max: 1000, places: 5 }),
  partner_ids: idList,
  campaign_ids: idList,
});
export type DealCreateInput = z.infer<typeof dealCreateInputSchema>;

export const dealUpdateInputSchema = z.object({
  id: dealIdSchema,
  floor_usd: dealCreateInputSchema.shape.floor_usd.optional(),
  partner_ids: idList.optional(),
  campaign_ids: idList.optional(),
});
export type DealUpdateInput = z.infer<typeof dealUpdateInputSchema>;

/** In the API's answers. */
export const dealSchema = z.object({
  id: z.string(),
  floor_usd: z.number(),
  partner_ids: z.array(z.number().int()),
  campaign_ids: z.array(z.number().int()),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Deal = z.infer<typeof dealSchema>;

/** As kept and mirrored to the engines (config kind `deal`, under the numeric `key`): the floor in micro-cents. */
export interface StoredDeal {
  key: number;
  id: string;
  floor_micro_cents: number;
  partner_ids: number[];
  campaign_ids: number[];
  created_at: string;
  updated_at: string;
}
