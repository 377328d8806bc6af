import { noBidReasonSchema } from '@adnet/schemas/events';
import { z } from 'zod';

// An OpenRTB case as data, in the manner of Prebid Server's bidder fixtures:
// the campaigns that exist, the request a partner sends, and what must come
// back. `exemplary/` holds the normal paths, `supplemental/` edge and error cases;
// a file named `ortb26-*` speaks OpenRTB 2.6 (header and field places). Every
// 200 and 204 must echo the version sent (none: 2.5), and every bid carries `mtype`.

const bidExpectation = z.object({
  impid: z.string(),
  /** Index into `campaigns`: whose creative wins. */
  campaign: z.number().int().min(0),
  /** CPM in USD. */
  price: z.number(),
  w: z.number().int().optional(),
  h: z.number().int().optional(),
  adomain: z.array(z.string()).optional(),
  /** What the ad markup is: a linked image, an OpenRTB Native 1.2 response, or VAST (2.0, 3.0 or 4.0). */
  markup: z.enum(['banner', 'native', 'vast']),
  /** Video: `bid.protocol`, the VAST version of the markup (2: 2.0, 3: 3.0, 7: 4.0). */
  protocol: z.union([z.literal(2), z.literal(3), z.literal(7)]).optional(),
  /** Native: the asset ids the response carries, in order (the request's own ids echoed). */
  nativeAssetIds: z.array(z.number().int()).optional(),
});

export const openRtbFixtureSchema = z.object({
  description: z.string(),
  campaigns: z
    .array(
      z.object({
        /** Fields of `POST /api/adv/campaigns` over a $1.20 CPM banner default. */
        campaign: z.record(z.string(), z.unknown()).default({}),
        /** Fields of the creative form over the defaults (title, body, landing_url). */
        creative: z.record(z.string(), z.string()).default({}),
      }),
    )
    .default([]),
  /**
   * Bodies of `POST /api/adv/audiences`, made before the campaigns; a campaign's `audiences_include` or
   * `audiences_exclude` entry "$audience<N>" names the Nth.
   */
  audiences: z.array(z.record(z.string(), z.unknown())).default([]),
  /** Fields of `POST /api/pub/zones` for one of our zones on an approved site; an imp's `tagid` "$zone" names it. */
  zone: z.record(z.string(), z.unknown()).optional(),
  /** The bid request; its `id` is made unique per run and must come back. */
  request: z.record(z.string(), z.unknown()).optional(),
  /** A raw body instead of `request` (malformed input). */
  rawBody: z.string().optional(),
  /** Request headers over `x-openrtb-version: 2.5` and the JSON content type (a 2.6 case sends `2.6`). */
  headers: z.record(z.string(), z.string()).default({}),
  expect: z.discriminatedUnion('status', [
    z.object({ status: z.literal(200), bids: z.array(bidExpectation).min(1) }),
    /** No bid: the reason recorded for each imp id (the no-bid event). */
    z.object({ status: z.literal(204), nobid: z.record(z.string(), noBidReasonSchema) }),
    /** Refused: `error` is a part of the message (the header or field it names). */
    z.object({ status: z.literal(400), error: z.string().optional() }),
    z.object({ status: z.literal(413) }),
  ]),
});
export type OpenRtbFixture = z.infer<typeof openRtbFixtureSchema>;
