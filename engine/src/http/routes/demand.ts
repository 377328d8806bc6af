import type { EngineContext } from '../../context.ts';
import { decodeDemandTicket } from '../../demand/demand-ticket.ts';
import type { DemandTicket } from '../../demand/demand-ticket.ts';
import { inventoryFacts, makeEvent, viewerFacts } from '../../events/make-event.ts';
import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import { clickVerdict, parseClickSignals } from '../../fraud/click-rules.ts';
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

/** Our click redirect for a partner's native ad (the second segment only fills the route's shape: the ticket is signed). */
export const demandClickLink = (baseUrl: string, token: string): string => `${baseUrl}/c/${token}/n`;

/**
 * GET /c/d.<ticket>/n?ttc&x&y&focus&fp&s: a click on a partner's native ad, judged as a click on our
 * own widget ads is (the widget's signals, click-rules.ts), and valid only once per auction and after
 * its impression was counted. A valid click is counted for the partner (`clicks`, else `invalid_clicks`)
 * and calls its `link.clicktrackers` once each (notices.ts: once-only, bounded retries, the SSRF rules
 * of every notice). Every click, valid or not, is redirected to the partner's landing, kept a day with
 * the win (win-store.ts); nothing is billed on it (partners buy impressions).
 */
export async function demandClick(ctx: EngineContext, req: EngineRequest, floodPerMinute: number): Promise<EngineReply> {
  const d = ctx.demand;
  const t = decodeDemandTicket(ctx.secret, req.params[0] ?? '');
  const win = t && d && t.surface === 'widget' ? await d.wins.load(t.auctionId) : undefined;
  // The Location header is written only from a plain http(s) URL, checked again here.
  if (!t || !d || !win?.link || !isSafeHttpUrl(win.link)) return errorReply('not_found', 'Unknown ad link');
  const now = Date.now();
  const signals = parseClickSignals(req.query, req.headers['user-agent'] ?? '', now - t.issuedAt * 1000);
  let reason = clickVerdict(signals);
  // A click on an ad whose render was never counted is no click on a shown ad.
  if (!reason && (await ctx.counters.countedAt('imp', `d:${t.auctionId}`)) === undefined) reason = 'no_impression';
  if (!reason && !(await ctx.counters.countOnce('click', `d:${t.auctionId}`))) reason = 'duplicate';
  if (!reason && (await ctx.counters.clicksThisMinute(signals.fingerprint, now)) > floodPerMinute) reason = 'click_flood';
  d.stats.add(t.partnerId, reason ? 'invalid_clicks' : 'clicks');
  if (!reason) {
    (win.clicktrackers ?? []).slice(0, 3).forEach((url, i) => void d.notifier.send(`${t.auctionId}:${t.partnerId}:click${i}`, url));
  }
  return { status: 302, headers: { location: win.link, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer-when-downgrade' } };
}
