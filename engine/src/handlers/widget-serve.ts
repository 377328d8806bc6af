import type { EngineEvent } from '@adnet/schemas/events';
import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import { VIDEO_ZONE_FORMATS } from '@adnet/schemas/publisher';
import { budgetDay } from '@adnet/schemas/budget-day';
import { randomUUID } from 'node:crypto';
import type { BudgetSlices } from '../budget/budget-slices.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import { VAST_NS, vastAdm } from '../openrtb/ad-markup.ts';
import type { EngineReply, EngineRequest } from '../transport/http-adapter.ts';
import { json } from '../transport/http-adapter.ts';
import { visitorOf, zoneAuction } from './zone-auction.ts';

export interface WidgetDeps {
  index: () => EngineIndex | undefined;
  budget: BudgetSlices;
  emit: (e: EngineEvent) => void;
  secret: string;
  baseUrl: string;
  engineId: string;
}

const CORS = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
const EMPTY_VAST = `<?xml version="1.0" encoding="UTF-8"?><VAST version="4.0" xmlns="${VAST_NS}"/>`;

/**
 * GET /imp?z=<subid>&fp=<fingerprint>&s=<signals>: one ad for a display zone as
 * JSON, or 204 when there is none. The served impression is counted and (CPM)
 * charged here, once per response.
 */
export function impHandler(deps: WidgetDeps) {
  return (req: EngineRequest): EngineReply => {
    const q = new URLSearchParams(req.query);
    const index = deps.index();
    const entry = index?.zones.get(q.get('z') ?? '');
    if (!index || !entry?.serving || VIDEO_ZONE_FORMATS.has(entry.zone.format)) return { status: 204, headers: CORS };
    const zone = entry.zone;
    const visitor = visitorOf(req.headers);
    const where = { publisher_id: zone.publisher_id, site_id: zone.site_id, zone_id: zone.id, country: visitor.country, device: visitor.device };
    const win = zoneAuction(index, zone, visitor, deps.budget, deps.secret, deps.engineId);
    const ts = Date.now();
    if ('reason' in win) {
      deps.emit({ id: randomUUID(), type: 'nobid', ts, engine: deps.engineId, reason: win.reason, ...where });
      return { status: 204, headers: CORS };
    }
    const c = win.candidate;
    const charge = c.bidType === 'cpm' ? cpmMicroCentsToNanoPerImpression(win.priceMicroCents) : 0;
    if (charge) deps.budget.recordSpend(c.campaignId, c.advertiserId, budgetDay(ts), charge, deps.engineId);
    deps.emit({
      id: randomUUID(), type: 'impression', ts, engine: deps.engineId, bid_id: win.bidId, campaign_id: c.campaignId, creative_id: c.creativeId,
      advertiser_id: c.advertiserId, price_micro_cents: win.priceMicroCents, charge_nano: charge, ...where,
    });
    const cr = c.creative;
    return json(200, {
      impression_id: win.ticket,
      format: zone.format,
      creative: { title: cr.title, body: cr.body, cta_text: cr.cta_text, image_url: cr.image_url, image_width: cr.image_width, image_height: cr.image_height },
      click_url: `${deps.baseUrl}/c/${win.ticket}/${cr.tracking_token}`,
    }, CORS);
  };
}

/** GET /vast/<subid>.xml: VAST 4.0 for a video zone; an empty VAST document when there is no ad. */
export function vastHandler(deps: WidgetDeps) {
  return (req: EngineRequest): EngineReply => {
    const xml = (body: string): EngineReply => ({ status: 200, headers: { ...CORS, 'content-type': 'application/xml; charset=utf-8' }, body });
    const subid = /^([A-Za-z0-9]{1,32})\.xml$/.exec(req.params[0] ?? '')?.[1];
    const index = deps.index();
    const entry = subid ? index?.zones.get(subid) : undefined;
    if (!index || !entry?.serving || !VIDEO_ZONE_FORMATS.has(entry.zone.format)) return xml(EMPTY_VAST);
    const win = zoneAuction(index, entry.zone, visitorOf(req.headers), deps.budget, deps.secret, deps.engineId);
    if ('reason' in win) return xml(EMPTY_VAST);
    const cr = win.candidate.creative;
    // The player fires the Impression pixel when the ad starts: that is what counts (and charges) for video zones.
    return xml(
      vastAdm(cr, {
        clickUrl: `${deps.baseUrl}/c/${win.ticket}/${cr.tracking_token}`,
        impressionUrl: `${deps.baseUrl}/openrtb/imptracker/${win.ticket}`,
        trackingUrl: (event) => `${deps.baseUrl}/t/vast/${event}/${win.ticket}`,
      }, win.bidId),
    );
  };
}
