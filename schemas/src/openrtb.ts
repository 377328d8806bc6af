import { z } from 'zod';
import { vastProtocolSchema } from './vast.ts';

// The OpenRTB 2.5 and 2.6 subset the engine reads. Unknown fields are allowed
// everywhere (the spec requires tolerance); these schemas are the reference
// the engine's cheap hot-path check (engine/src/openrtb/parse-request.ts) is
// tested against.

// 0 means "not said" (the OpenRTB 2.5 examples send it for interstitials): such a size matches no slot.
export const bannerFormatSchema = z.looseObject({
  w: z.number().int().nonnegative(),
  h: z.number().int().nonnegative(),
});
export const bannerSchema = z.looseObject({
  w: z.number().int().nonnegative().optional(),
  h: z.number().int().nonnegative().optional(),
  format: z.array(bannerFormatSchema).optional(),
});
/** A private marketplace (OpenRTB 2.5 §3.2.11, §3.2.12): the deals the seller offers on the imp; `private_auction: 1` means deals only. */
export const dealSchema = z.looseObject({
  id: z.string().min(1),
  bidfloor: z.number().min(0).optional(),
  bidfloorcur: z.string().optional(),
});
export const pmpSchema = z.looseObject({
  private_auction: z.number().int().optional(),
  deals: z.array(dealSchema).max(100).optional(),
});
export const impSchema = z.looseObject({
  id: z.string().min(1),
  banner: bannerSchema.optional(),
  native: z.looseObject({ request: z.string().optional(), ver: z.string().optional() }).optional(),
  video: z
    .looseObject({
      mimes: z.array(z.string()).optional(),
      protocols: z.array(z.number()).optional(),
      w: z.number().optional(),
      h: z.number().optional(),
      minduration: z.number().int().nonnegative().optional(),
      maxduration: z.number().int().nonnegative().optional(),
      /** OpenRTB 2.6 video placement subtype (list: 1 instream, 2 accompanying content, 3 interstitial, 4 no content). */
      plcmt: z.number().int().optional(),
    })
    .optional(),
  bidfloor: z.number().min(0).optional(),
  bidfloorcur: z.string().optional(),
  tagid: z.string().optional(),
  pmp: pmpSchema.optional(),
  /** OpenRTB 2.6: 1 when the user is rewarded for viewing (2.5 partners: `imp.ext.prebid.is_rewarded_inventory`). */
  rwdd: z.number().int().optional(),
});
/** Bounds of `device.sua` (a brand is a short name; browsers list a handful, with GREASE entries). */
export const SUA_LIMITS = { brand: 64, version: 32, versions: 8, browsers: 16 } as const;
const brandVersion = z.looseObject({
  brand: z.string().max(SUA_LIMITS.brand),
  version: z.array(z.string().max(SUA_LIMITS.version)).max(SUA_LIMITS.versions).optional(),
});
/**
 * OpenRTB 2.6 `device.sua`, the Structured User Agent (the browser's User-Agent Client Hints as the
 * partner read them); 2.5 partners send it too. Only what we read is checked: `browsers`, `platform`
 * and `mobile` (0 or 1).
 */
export const structuredUserAgentSchema = z.looseObject({
  browsers: z.array(brandVersion).max(SUA_LIMITS.browsers).optional(),
  platform: brandVersion.optional(),
  mobile: z.number().int().min(0).max(1).optional(),
});
export type StructuredUserAgent = z.infer<typeof structuredUserAgentSchema>;

/** A supply chain node (IAB SupplyChain object 1.0): `asi` the system's domain, `sid` the seller's id there, `hp` 1 when it is paid. */
export const supplyChainNodeSchema = z.looseObject({
  asi: z.string(),
  sid: z.string(),
  hp: z.number().int().optional(),
  rid: z.string().optional(),
});
export const supplyChainSchema = z.looseObject({
  complete: z.number().int(),
  ver: z.string(),
  nodes: z.array(supplyChainNodeSchema).max(20),
});
export type SupplyChain = z.infer<typeof supplyChainSchema>;
export type SupplyChainNode = z.infer<typeof supplyChainNodeSchema>;

/** A bid request's fields (OpenRTB 2.5 §3.2.1), before the rules across fields: what the supply side extends. */
const bidRequestFields = z.looseObject({
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
  /** An app's placement (OpenRTB 2.5 §3.2.14): never with `site`; `bundle` names it in the statistics (`source`). */
  app: z
    .looseObject({
      id: z.string().optional(),
      name: z.string().optional(),
      bundle: z.string().optional(),
      domain: z.string().optional(),
      storeurl: z.string().optional(),
      cat: z.array(z.string()).optional(),
      publisher: z
        .looseObject({ id: z.string().optional(), name: z.string().optional(), domain: z.string().optional() })
        .optional(),
    })
    .optional(),
  device: z
    .looseObject({
      ua: z.string().optional(),
      sua: structuredUserAgentSchema.optional(),
      ip: z.string().optional(),
      ipv6: z.string().optional(),
      devicetype: z.number().int().optional(),
      connectiontype: z.number().int().optional(),
      language: z.string().optional(),
      os: z.string().optional(),
      geo: z.looseObject({ country: z.string().optional() }).optional(),
    })
    .optional(),
  user: z
    .looseObject({
      id: z.string().optional(),
      /** OpenRTB 2.6 place of the TCF consent string (2.5: `user.ext.consent`). */
      consent: z.string().optional(),
      /** OpenRTB 2.6 extended ids (2.5: `user.ext.eids`); kept, not read. */
      eids: z.array(z.unknown()).optional(),
      ext: z.looseObject({ consent: z.string().optional() }).optional(),
    })
    .optional(),
  /**
   * Privacy signals (docs/openrtb.md, privacy): COPPA, GDPR (with the consent string) and the CCPA's US Privacy
   * string, at their OpenRTB 2.6 places or their 2.5 `ext` places (engine/src/openrtb/normalise.ts).
   */
  regs: z
    .looseObject({
      coppa: z.number().int().optional(),
      gdpr: z.number().int().optional(),
      us_privacy: z.string().optional(),
      gpp: z.string().optional(),
      gpp_sid: z.array(z.number().int()).max(50).optional(),
      ext: z.looseObject({ gdpr: z.number().int().optional(), us_privacy: z.string().optional() }).optional(),
    })
    .optional(),
  /** OpenRTB 2.6 `source.schain` (2.5: `source.ext.schain`): the supply chain that led to us. */
  source: z.looseObject({ schain: supplyChainSchema.optional() }).optional(),
  tmax: z.number().int().positive().optional(),
  cur: z.array(z.string()).optional(),
  bcat: z.array(z.string()).optional(),
  badv: z.array(z.string()).optional(),
  test: z.number().int().optional(),
});
export const bidRequestSchema = bidRequestFields.refine((r) => !(r.site && r.app), {
  message: 'must not carry both site and app',
  path: ['app'],
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
  /** Billing notice, for partners that bill by it (`billing_notice: burl`). */
  burl: z.string().optional(),
  crid: z.string(),
  cid: z.string(),
  adomain: z.array(z.string()),
  w: z.number().int().optional(),
  h: z.number().int().optional(),
  /** The deal the bid is made on (`imp.pmp.deals[].id`), when it is. */
  dealid: z.string().optional(),
  /**
   * A video bid's VAST version (OpenRTB 2.6 `bid.protocol`, list 5.8): 2, 3 or 7 for our inline VAST 2.0,
   * 3.0 or 4.0, the highest the imp's `video.protocols` allow (schemas/src/vast.ts).
   */
  protocol: vastProtocolSchema.optional(),
  /** OpenRTB 2.6 markup type, on every bid: 1 banner, 2 video, 3 audio, 4 native. */
  mtype: z.union([z.literal(1), z.literal(2), z.literal(3), z.literal(4)]),
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

/**
 * OpenRTB 2.5 connection types (list 5.22, `device.connectiontype`) by name, as campaigns target them:
 * 1 ethernet, 2 wifi, 3 cellular of unknown generation, 4 2G, 5 3G, 6 4G. 0 (unknown) and codes of
 * later versions are no connection type.
 */
export const CONNECTION_TYPES = [
  'ethernet',
  'wifi',
  'cellular_unknown',
  'cellular_2g',
  'cellular_3g',
  'cellular_4g',
] as const;
export type ConnectionType = (typeof CONNECTION_TYPES)[number];
export const connectionTypeOf = (code: number | undefined): ConnectionType | undefined =>
  code !== undefined && code >= 1 ? CONNECTION_TYPES[code - 1] : undefined;

// ---- the supply side: what we send to demand partners and what they answer (engine/src/demand/)

/** A demand partner's bid (OpenRTB 2.5 §4.2.3): only what we read; the price is CPM in `cur` (USD only). */
export const dspBidSchema = z.looseObject({
  id: z.string().min(1),
  impid: z.string(),
  price: z.number(),
  adm: z.string().optional(),
  nurl: z.string().optional(),
  burl: z.string().optional(),
  lurl: z.string().optional(),
  adomain: z.array(z.string()).optional(),
  crid: z.string().optional(),
  w: z.number().optional(),
  h: z.number().optional(),
  /** OpenRTB 2.6: the VAST version of a video answer (list 5.8); our wrapper follows it when the markup does not say. */
  protocol: z.number().int().optional(),
});
export type DspBid = z.infer<typeof dspBidSchema>;
export const dspBidResponseSchema = z.looseObject({
  id: z.string(),
  seatbid: z.array(z.looseObject({ seat: z.string().optional(), bid: z.array(z.unknown()) })).optional(),
  cur: z.string().optional(),
});
export type DspBidResponse = z.infer<typeof dspBidResponseSchema>;

/**
 * The bid request we send (OpenRTB 2.5 §3.2): the fields of `BidRequest` plus those only the supply
 * side fills in. Each partner gets the same request, so one object serves the whole fan-out.
 */
export const outgoingBidRequestSchema = bidRequestFields.extend({
  at: z.literal(2),
  imp: z
    .array(
      impSchema.extend({
        secure: z.literal(1),
        video: z
          .looseObject({
            mimes: z.array(z.string()),
            protocols: z.array(z.number()),
            minduration: z.number().optional(),
            maxduration: z.number().optional(),
            w: z.number().optional(),
            h: z.number().optional(),
          })
          .optional(),
      }),
    )
    .length(1),
  site: z.looseObject({
    id: z.string(),
    domain: z.string(),
    page: z.string().optional(),
    cat: z.array(z.string()),
    publisher: z.looseObject({ id: z.string() }),
  }),
  regs: z.looseObject({ coppa: z.number().optional() }),
  /** The supply chain goes in `source.schain` to 2.6 partners, `source.ext.schain` to 2.5 ones (engine/src/demand/supply-chain.ts). */
  source: z.looseObject({
    tid: z.string(),
    schain: supplyChainSchema.optional(),
    ext: z.looseObject({ schain: supplyChainSchema.optional() }).optional(),
  }),
  tmax: z.number().int().positive(),
  cur: z.array(z.string()),
});
export type OutgoingBidRequest = z.infer<typeof outgoingBidRequestSchema>;
