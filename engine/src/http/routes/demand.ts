import type { EngineContext } from '../../context.ts';
import { decodeDemandTicket } from '../../demand/demand-ticket.ts';
import type { DemandTicket } from '../../demand/demand-ticket.ts';
import { inventoryFacts, makeEvent, viewerFacts } from '../../events/make-event.ts';
import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import { errorReply } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { PIXEL_REPLY } from './pixel.ts';

/** A partner's impression counts within an hour of its auction, as our own pixels do. */
const MAX_AGE_SECONDS = 3_600;

/**
 * GET /openrtb/imptracker/d.<ticket>: a demand partner's ad was rendered (widget) or started (VAST
 * player). Counted once per auction however often or concurrently it is called (a once-only mark
 * shared by every engine); the first count adds the partner's impression and revenue and sends its
 * billing notice (`burl`), once. Always a pixel for a valid ticket; a forged one is a 404.
 */
export async function demandImpression(ctx: EngineContext, token: string): Promise<EngineReply> {
  const d = ctx.demand;
  const t = decodeDemandTicket(ctx.secret, token);
  if (!t || !d) return errorReply('not_found', 'Unknown impression', { 'access-control-allow-origin': '*' });
  if (Date.now() / 1000 - t.issuedAt > MAX_AGE_SECONDS) return PIXEL_REPLY;
  if (await ctx.counters.countOnce('imp', `d:${t.auctionId}`)) {
    // Revenue in nano-dollars per impression at the clearing price (CPM), as our own impressions are charged.
    const revenueNano = cpmMicroCentsToNanoPerImpression(t.priceMicroCents);
    d.stats.add(t.partnerId, 'impressions');
    d.stats.add(t.partnerId, 'revenue_nano', revenueNano);
    // Into the statistics and the publisher's earnings, through the event pipeline our own impressions take.
    ctx.emit(demandImpressionEvent(ctx.engineId, t, revenueNano));
    const win = await d.wins.load(t.auctionId);
    if (win?.burl) void d.notifier.send(`${t.auctionId}:${t.partnerId}:burl`, win.burl);
  }
  return PIXEL_REPLY;
}

/** The counted impression's event: on the ticket's zone, to its viewer, bought by its partner at the clearing price. */
export function demandImpressionEvent(engine: string, t: DemandTicket, chargeNano: number) {
  return makeEvent('demand_impression', {
    ts: Date.now(),
    engine,
    ...inventoryFacts(t),
    ...viewerFacts(t),
    demand_partner_id: t.partnerId,
    auction_id: t.auctionId,
    price_micro_cents: t.priceMicroCents,
    charge_nano: chargeNano,
  });
}

/** GET /openrtb/adm/d.<ticket>: a partner's winning VAST markup, which our Wrapper points the player at. */
export function demandMarkupRoute(ctx: EngineContext) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    const d = ctx.demand;
    const t = decodeDemandTicket(ctx.secret, req.params[0] ?? '');
    const win = t && d && t.surface === 'vast' ? await d.wins.load(t.auctionId) : undefined;
    if (!win?.adm) return errorReply('not_found', 'Unknown ad');
    return {
      status: 200,
      headers: { 'content-type': 'application/xml; charset=utf-8', 'cache-control': 'no-store', 'access-control-allow-origin': '*' },
      body: win.adm,
    };
  };
}
