import { z } from 'zod';

// The OpenRTB 2.5 subset the engine reads. Unknown fields are allowed
// everywhere (the spec requires tolerance); these schemas are the reference
// the engine's cheap hot-path check (engine/src/openrtb/parse-request.ts) is
// tested against.

export const bannerFormatSchema = z.looseObject({ w: z.number().int().positive(), h: z.number().int().positive() });
export const bannerSchema = z.looseObject({
  w: z.number().int().positive().optional(),
  h: z.number().int().positive().optional(),
  format: z.array(bannerFormatSchema).optional(),
});
export const impSchema = z.looseObject({
  id: z.string().min(1),
  banner: bannerSchema.optional(),
  native: z.looseObject({ request: z.string().optional(), ver: z.string().optional() }).optional(),
  video: z.looseObject({ mimes: z.array(z.string()).optional(), w: z.number().optional(), h: z.number().optional() }).optional(),
  bidfloor: z.number().min(0).optional(),
  bidfloorcur: z.string().optional(),
  tagid: z.string().optional(),
});
export const bidRequestSchema = z.looseObject({
  id: z.string().min(1),
  imp: z.array(impSchema).min(1),
  site: z
    .looseObject({
      id: z.string().optional(),
      domain: z.string().optional(),
      cat: z.array(z.string()).optional(),
      page: z.string().optional(),
    })
    .optional(),
  device: z
    .looseObject({
      ua: z.string().optional(),
      ip: z.string().optional(),
      devicetype: z.number().int().optional(),
      language: z.string().optional(),
      os: z.string().optional(),
      geo: z.looseObject({ country: z.string().optional() }).optional(),
    })
    .optional(),
  user: z.looseObject({ id: z.string().optional() }).optional(),
  tmax: z.number().int().positive().optional(),
  cur: z.array(z.string()).optional(),
  bcat: z.array(z.string()).optional(),
  badv: z.array(z.string()).optional(),
  test: z.number().int().optional(),
});
export type BidRequest = z.infer<typeof bidRequestSchema>;
export type Imp = z.infer<typeof impSchema>;

/** One bid of our response (OpenRTB 2.5 §4.2.3): price is CPM in USD; `w`/`h` for banners. */
export const bidSchema = z.object({
  id: z.string(),
  impid: z.string(),
  price: z.number(),
  adm: z.string(),
  nurl: z.string(),
  crid: z.string(),
  cid: z.string(),
  adomain: z.array(z.string()),
  w: z.number().int().optional(),
  h: z.number().int().optional(),
});
export type Bid = z.infer<typeof bidSchema>;

export const bidResponseSchema = z.object({
  id: z.string(),
  seatbid: z.array(z.object({ seat: z.string(), bid: z.array(bidSchema) })),
  cur: z.literal('USD'),
});
export type BidResponse = z.infer<typeof bidResponseSchema>;

/** OpenRTB 2.5 device types (list 5.21) the engine distinguishes. */
export const DEVICE_TYPES = ['desktop', 'mobile', 'tablet'] as const;
export type DeviceType = (typeof DEVICE_TYPES)[number];
export function deviceTypeOf(devicetype: number | undefined): DeviceType | undefined {
  switch (devicetype) {
    case 2:
      return 'desktop';
    case 1:
    case 4:
    case 6:
      return 'mobile';
    case 5:
      return 'tablet';
    default:
      return undefined;
  }
}
