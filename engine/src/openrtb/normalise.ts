import type { BidRequest } from '@adnet/schemas/openrtb';
import { isSupplyChain, suaProblem } from './parse-request.ts';

/**
 * OpenRTB 2.6 moved signals out of `ext` into fields of their own. A partner may send either place (2.5
 * partners and 2.6 ones alike: the header names the version, not where each field is). This maps a checked
 * request (parse-request.ts) onto one shape, the 2.6 places, once at the edge, so nothing after it reads `ext`:
 *
 * | 2.6 place (what the engine reads) | 2.5 place |
 * |---|---|
 * | `regs.gdpr` | `regs.ext.gdpr` |
 * | `regs.us_privacy` | `regs.ext.us_privacy` |
 * | `regs.gpp`, `regs.gpp_sid` | `regs.ext.gpp`, `regs.ext.gpp_sid` |
 * | `user.consent` | `user.ext.consent` |
 * | `user.eids` | `user.ext.eids` |
 * | `source.schain` | `source.ext.schain` |
 * | `imp[].rwdd` | `imp[].ext.prebid.is_rewarded_inventory` |
 * | `imp[].video.plcmt` | `imp[].video.ext.plcmt` |
 * | `device.sua` | `device.ext.sua` |
 *
 * **Precedence: the 2.6 place wins when both are present**; the 2.5 place fills it only when it is absent.
 * The 2.6 places and the 2.5 places the engine always read (`regs.ext.gdpr`, `regs.ext.us_privacy`,
 * `user.ext.consent`) are type-checked by the parser (400 naming the field); the other `ext` places are
 * new to us, so a malformed value there is ignored (taken as absent), never a 400 for a 2.5 partner.
 *
 * It writes into the parsed request (its own objects, parsed for this request) instead of copying it: one
 * request, one pass over a handful of fields.
 */
export function normaliseBidRequest(request: BidRequest): BidRequest {
  const r = request as Loose;
  const regs = obj(r.regs);
  const regsExt = obj(regs?.ext);
  if (regs && regsExt) {
    if (regs.gdpr === undefined && regsExt.gdpr !== undefined) regs.gdpr = regsExt.gdpr;
    if (regs.us_privacy === undefined && regsExt.us_privacy !== undefined) regs.us_privacy = regsExt.us_privacy;
    if (regs.gpp === undefined && typeof regsExt.gpp === 'string') regs.gpp = regsExt.gpp;
    if (regs.gpp_sid === undefined && intArray(regsExt.gpp_sid)) regs.gpp_sid = regsExt.gpp_sid;
  }
  const user = obj(r.user);
  const userExt = obj(user?.ext);
  if (user && userExt) {
    if (user.consent === undefined && userExt.consent !== undefined) user.consent = userExt.consent;
    if (user.eids === undefined && Array.isArray(userExt.eids)) user.eids = userExt.eids;
  }
  const source = obj(r.source);
  if (source && source.schain === undefined) {
    const chain = obj(source.ext)?.schain;
    if (isSupplyChain(chain)) source.schain = chain;
  }
  const device = obj(r.device);
  if (device && device.sua === undefined) {
    // Taken only when it would pass the parser's check of `device.sua`; else ignored.
    const sua = obj(device.ext)?.sua;
    if (sua !== undefined && suaProblem(sua) === undefined) device.sua = sua;
  }
  const imps = r.imp as Loose[];
  for (let i = 0; i < imps.length; i++) {
    const imp = imps[i] as Loose;
    if (imp.rwdd === undefined) {
      const rewarded = obj(obj(imp.ext)?.prebid)?.is_rewarded_inventory;
      if (Number.isInteger(rewarded)) imp.rwdd = rewarded;
    }
    const video = obj(imp.video);
    if (video && video.plcmt === undefined) {
      const plcmt = obj(video.ext)?.plcmt;
      if (Number.isInteger(plcmt)) video.plcmt = plcmt;
    }
  }
  return request;
}

type Loose = Record<string, unknown>;
const obj = (v: unknown): Loose | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Loose) : undefined;
const intArray = (v: unknown): boolean => Array.isArray(v) && v.length <= 50 && v.every(Number.isInteger);
