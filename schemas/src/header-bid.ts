import { z } from 'zod';

// POST /hb/bid: what our Prebid.js adapter (prebid/) sends and reads. The request is the OpenRTB 2.5 or 2.6 body
// Prebid's ortbConverter writes, of which only these fields are read (others are ignored); each imp names one of
// our zones by its subid in `tagid`. The answer is an OpenRTB bid response whose markup renders the ad.

/** At most this many imps in one request (one per zone on the page). */
export const HB_MAX_IMPS = 10;

const size = z.number().int().min(0).max(10_000);
const ids = (what: string) => z.string().min(1, `${what} is required`).max(64, `${what} is at most 64 characters`);

export const hbImpSchema = z.object({
  id: ids('imp[].id'),
  /** The zone's subid. */
  tagid: ids('imp[].tagid'),
  banner: z
    .object({
      w: size.optional(),
      h: size.optional(),
      format: z
        .array(z.object({ w: size, h: size }))
        .max(32)
        .optional(),
    })
    .optional(),
  native: z.object({ request: z.string().max(16_384).optional() }).optional(),
  video: z
    .object({
      mimes: z.array(z.string().max(64)).max(32).optional(),
      protocols: z.array(z.number().int()).max(32).optional(),
      w: size.optional(),
      h: size.optional(),
    })
    .optional(),
});
export type HbImp = z.infer<typeof hbImpSchema>;

export const hbRequestSchema = z.object({
  id: ids('id'),
  imp: z
    .array(hbImpSchema)
    .min(1, 'imp must list at least one impression')
    .max(HB_MAX_IMPS, `imp may list at most ${HB_MAX_IMPS} impressions`),
  /** Our adapter's own fields: the first-party id it keeps (`adnet:uid`, as the widget does), for frequency caps. */
  ext: z.object({ adnet: z.object({ u: z.string().max(64).optional() }).optional() }).optional(),
});
export type HbRequest = z.infer<typeof hbRequestSchema>;

/** OpenRTB 2.6 `mtype`: 1 banner, 2 video, 4 native. */
export const HB_MTYPE = { banner: 1, video: 2, native: 4 } as const;

export const hbBidSchema = z.object({
  id: z.string(),
  impid: z.string(),
  /** CPM, USD. */
  price: z.number().positive(),
  adm: z.string(),
  crid: z.string(),
  w: z.number().int().optional(),
  h: z.number().int().optional(),
  mtype: z.union([z.literal(1), z.literal(2), z.literal(4)]),
  adomain: z.array(z.string()).optional(),
  /** The win notice Prebid's `onBidWon` calls: informational, counted once, never a charge. */
  nurl: z.string().optional(),
});
export type HbBid = z.infer<typeof hbBidSchema>;

export const hbResponseSchema = z.object({
  id: z.string(),
  seatbid: z.array(z.object({ seat: z.string().optional(), bid: z.array(hbBidSchema) })),
  cur: z.literal('USD'),
});
export type HbResponse = z.infer<typeof hbResponseSchema>;
