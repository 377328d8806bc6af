import { SUA_LIMITS } from '@adnet/schemas/openrtb';
import type { BidRequest } from '@adnet/schemas/openrtb';

export type ParseResult = { ok: true; request: BidRequest } | { ok: false; reason: string };

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const optStr = (v: unknown) => v === undefined || typeof v === 'string';
const optNum = (v: unknown) => v === undefined || (typeof v === 'number' && Number.isFinite(v));
const optInt = (v: unknown) => v === undefined || Number.isInteger(v);
const isStr = (x: unknown) => typeof x === 'string';
const optStrArr = (v: unknown) => v === undefined || (Array.isArray(v) && v.length <= 500 && v.every(isStr));
// A banner size of 0 means "not said" (the OpenRTB 2.5 examples send it for interstitials).
const posInt = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v > 0;
const size = (v: unknown) => typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 100_000;
const isSize = (f: unknown) => isObj(f) && size(f.w) && size(f.h);

const MAX_IMPS = 20;
const OBJECT_FIELDS = ['site', 'app', 'device', 'user'] as const;
const MAX_DEALS = 100;

const brandVersionOk = (v: unknown): boolean =>
  isObj(v) &&
  typeof v.brand === 'string' &&
  v.brand.length <= SUA_LIMITS.brand &&
  (v.version === undefined ||
    (Array.isArray(v.version) &&
      v.version.length <= SUA_LIMITS.versions &&
      v.version.every((x) => typeof x === 'string' && x.length <= SUA_LIMITS.version)));

/** Why a structured user agent is out of shape (docs/openrtb.md), undefined when it is not. */
export function suaProblem(sua: unknown): string | undefined {
  if (!isObj(sua)) return 'device.sua must be an object';
  if (
    sua.browsers !== undefined &&
    !(Array.isArray(sua.browsers) && sua.browsers.length <= SUA_LIMITS.browsers && sua.browsers.every(brandVersionOk))
  )
    return `device.sua.browsers must be at most ${SUA_LIMITS.browsers} {brand, version} objects`;
  if (sua.platform !== undefined && !brandVersionOk(sua.platform))
    return 'device.sua.platform must be a {brand, version} object';
  if (sua.mobile !== undefined && sua.mobile !== 0 && sua.mobile !== 1) return 'device.sua.mobile must be 0 or 1';
  return undefined;
}

const MAX_CHAIN = 20;
const optIntArr = (v: unknown) => v === undefined || (Array.isArray(v) && v.length <= 50 && v.every(Number.isInteger));
const isNode = (n: unknown) => isObj(n) && typeof n.asi === 'string' && typeof n.sid === 'string' && optInt(n.hp);
/** A supply chain object (IAB SupplyChain 1.0): `complete` and `ver`, at most 20 nodes of `{asi, sid}`. */
export const isSupplyChain = (v: unknown): boolean =>
  isObj(v) &&
  Number.isInteger(v.complete) &&
  typeof v.ver === 'string' &&
  Array.isArray(v.nodes) &&
  v.nodes.length <= MAX_CHAIN &&
  v.nodes.every(isNode);

function pmpProblem(pmp: unknown): string | undefined {
  if (!isObj(pmp)) return 'imp[].pmp must be an object';
  if (pmp.private_auction !== undefined && !Number.isInteger(pmp.private_auction))
    return 'imp[].pmp.private_auction must be an integer';
  if (pmp.deals === undefined) return undefined;
  if (!Array.isArray(pmp.deals) || pmp.deals.length > MAX_DEALS)
    return `imp[].pmp.deals must be an array of at most ${MAX_DEALS} deals`;
  for (const d of pmp.deals as unknown[]) {
    if (!isObj(d) || typeof d.id !== 'string' || d.id.length === 0) return 'imp[].pmp.deals[].id is required (string)';
    if (!optNum(d.bidfloor) || (typeof d.bidfloor === 'number' && d.bidfloor < 0))
      return 'imp[].pmp.deals[].bidfloor must be a number >= 0';
    if (!optStr(d.bidfloorcur)) return 'imp[].pmp.deals[].bidfloorcur must be a string';
  }
  return undefined;
}

/**
 * The checks `bidRequestSchema` (schemas/src/openrtb.ts) makes, written out by
 * hand: zod on every bid request costs more than the rest of the auction, and
 * unknown fields are ignored as OpenRTB requires. A unit test keeps the two in
 * agreement on valid and invalid corpora.
 */
export function parseBidRequest(body: Buffer): ParseResult {
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch {
    return { ok: false, reason: 'body is not valid JSON' };
  }
  if (!isObj(raw)) return { ok: false, reason: 'body must be a JSON object' };
  if (typeof raw.id !== 'string' || raw.id.length === 0) return { ok: false, reason: 'id is required (string)' };
  if (!Array.isArray(raw.imp) || raw.imp.length === 0)
    return { ok: false, reason: 'imp is required (non-empty array)' };
  if (raw.imp.length > MAX_IMPS) return { ok: false, reason: `imp has more than ${MAX_IMPS} entries` };
  // Indexed loops here and below: a for-of's iterator showed in the allocation profile of every request.
  const imps = raw.imp as unknown[];
  for (let i = 0; i < imps.length; i++) {
    const imp = imps[i];
    if (!isObj(imp) || typeof imp.id !== 'string' || imp.id.length === 0)
      return { ok: false, reason: 'imp[].id is required (string)' };
    if (!optNum(imp.bidfloor) || (typeof imp.bidfloor === 'number' && imp.bidfloor < 0))
      return { ok: false, reason: 'imp[].bidfloor must be a number >= 0' };
    if (!optStr(imp.bidfloorcur) || !optStr(imp.tagid))
      return { ok: false, reason: 'imp[].bidfloorcur and imp[].tagid must be strings' };
    if (imp.banner !== undefined) {
      const b = imp.banner;
      if (!isObj(b)) return { ok: false, reason: 'imp[].banner must be an object' };
      if ((b.w !== undefined && !size(b.w)) || (b.h !== undefined && !size(b.h)))
        return { ok: false, reason: 'imp[].banner.w/h must be integers >= 0' };
      if (b.format !== undefined && (!Array.isArray(b.format) || b.format.length > 50 || !b.format.every(isSize))) {
        return { ok: false, reason: 'imp[].banner.format must be an array of {w, h}' };
      }
    }
    if (imp.native !== undefined && !isObj(imp.native)) return { ok: false, reason: 'imp[].native must be an object' };
    if (imp.video !== undefined) {
      const v = imp.video;
      if (!isObj(v)) return { ok: false, reason: 'imp[].video must be an object' };
      if (!optStrArr(v.mimes)) return { ok: false, reason: 'imp[].video.mimes must be an array of strings' };
      if (
        v.protocols !== undefined &&
        (!Array.isArray(v.protocols) || v.protocols.length > 50 || !v.protocols.every(posInt))
      )
        return { ok: false, reason: 'imp[].video.protocols must be an array of integers' };
      if (
        (v.minduration !== undefined && !size(v.minduration)) ||
        (v.maxduration !== undefined && !size(v.maxduration))
      )
        return { ok: false, reason: 'imp[].video.minduration/maxduration must be integers >= 0' };
      if (!optInt(v.plcmt)) return { ok: false, reason: 'imp[].video.plcmt must be an integer' };
    }
    if (!optInt(imp.rwdd)) return { ok: false, reason: 'imp[].rwdd must be an integer' };
    if (imp.pmp !== undefined) {
      const problem = pmpProblem(imp.pmp);
      if (problem) return { ok: false, reason: problem };
    }
  }
  for (let i = 0; i < OBJECT_FIELDS.length; i++) {
    const key = OBJECT_FIELDS[i] as (typeof OBJECT_FIELDS)[number];
    if (raw[key] !== undefined && !isObj(raw[key])) return { ok: false, reason: `${key} must be an object` };
  }
  const site = raw.site as Record<string, unknown> | undefined;
  if (site && (!optStr(site.id) || !optStr(site.domain) || !optStrArr(site.cat)))
    return { ok: false, reason: 'site.id/domain must be strings, site.cat an array of strings' };
  const app = raw.app as Record<string, unknown> | undefined;
  if (app) {
    // OpenRTB 2.5 §3.2.14: a request is shown on a site or in an app, never both.
    if (site) return { ok: false, reason: 'site and app must not both be present' };
    if (
      !optStr(app.id) ||
      !optStr(app.name) ||
      !optStr(app.bundle) ||
      !optStr(app.domain) ||
      !optStr(app.storeurl) ||
      !optStrArr(app.cat)
    )
      return { ok: false, reason: 'app.id/name/bundle/domain/storeurl must be strings, app.cat an array of strings' };
    const pub = app.publisher;
    if (pub !== undefined && (!isObj(pub) || !optStr(pub.id) || !optStr(pub.name) || !optStr(pub.domain)))
      return { ok: false, reason: 'app.publisher must be an object of strings id/name/domain' };
  }
  const device = raw.device as Record<string, unknown> | undefined;
  if (device) {
    if (
      !optStr(device.ua) ||
      !optStr(device.ip) ||
      !optStr(device.ipv6) ||
      !optStr(device.language) ||
      !optStr(device.os)
    )
      return { ok: false, reason: 'device string fields must be strings' };
    if (device.devicetype !== undefined && !Number.isInteger(device.devicetype))
      return { ok: false, reason: 'device.devicetype must be an integer' };
    if (device.connectiontype !== undefined && !Number.isInteger(device.connectiontype))
      return { ok: false, reason: 'device.connectiontype must be an integer' };
    if (device.geo !== undefined && (!isObj(device.geo) || !optStr(device.geo.country)))
      return { ok: false, reason: 'device.geo.country must be a string' };
    const sua = device.sua === undefined ? undefined : suaProblem(device.sua);
    if (sua) return { ok: false, reason: sua };
  }
  const user = raw.user as Record<string, unknown> | undefined;
  if (user?.ext !== undefined && (!isObj(user.ext) || !optStr(user.ext.consent)))
    return { ok: false, reason: 'user.ext.consent must be a string' };
  // OpenRTB 2.6 places (engine/src/openrtb/normalise.ts reads them and their 2.5 ext places).
  if (user && !optStr(user.consent)) return { ok: false, reason: 'user.consent must be a string' };
  if (user?.eids !== undefined && !Array.isArray(user.eids)) return { ok: false, reason: 'user.eids must be an array' };
  if (raw.source !== undefined) {
    const source = raw.source;
    if (!isObj(source)) return { ok: false, reason: 'source must be an object' };
    if (source.schain !== undefined && !isSupplyChain(source.schain))
      return { ok: false, reason: 'source.schain must be {complete, ver, nodes: [{asi, sid}]}' };
  }
  if (raw.regs !== undefined) {
    const regs = raw.regs;
    if (!isObj(regs)) return { ok: false, reason: 'regs must be an object' };
    if (regs.coppa !== undefined && !Number.isInteger(regs.coppa))
      return { ok: false, reason: 'regs.coppa must be an integer' };
    if (!optInt(regs.gdpr)) return { ok: false, reason: 'regs.gdpr must be an integer' };
    if (!optStr(regs.us_privacy)) return { ok: false, reason: 'regs.us_privacy must be a string' };
    if (!optStr(regs.gpp)) return { ok: false, reason: 'regs.gpp must be a string' };
    if (!optIntArr(regs.gpp_sid)) return { ok: false, reason: 'regs.gpp_sid must be an array of integers' };
    if (regs.ext !== undefined) {
      if (!isObj(regs.ext)) return { ok: false, reason: 'regs.ext must be an object' };
      if (regs.ext.gdpr !== undefined && !Number.isInteger(regs.ext.gdpr))
        return { ok: false, reason: 'regs.ext.gdpr must be an integer' };
      if (!optStr(regs.ext.us_privacy)) return { ok: false, reason: 'regs.ext.us_privacy must be a string' };
    }
  }
  if (raw.tmax !== undefined && !posInt(raw.tmax)) return { ok: false, reason: 'tmax must be a positive integer' };
  if (!optStrArr(raw.cur) || !optStrArr(raw.bcat) || !optStrArr(raw.badv))
    return { ok: false, reason: 'cur, bcat and badv must be arrays of strings' };
  if (raw.test !== undefined && !Number.isInteger(raw.test)) return { ok: false, reason: 'test must be an integer' };
  return { ok: true, request: raw as BidRequest };
}
