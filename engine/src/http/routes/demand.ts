import type { EngineContext } from '../../context.ts';
import { DEMAND_CLICK_SEGMENT, decodeDemandTicket } from '../../demand/demand-ticket.ts';
import { countDemandImpression } from '../../demand/demand-impression.ts';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import { judgeClick } from '../../fraud/judge-click.ts';
import { inventoryFacts, makeEvent, viewerFacts } from '../../events/make-event.ts';
import { clickIdOf } from '../../tracking/click-id.ts';
import { errorReply } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { PIXEL_REPLY } from './pixel.ts';

/** A partner's impression counts within an hour of its auction, as our own pixels do. */
const MAX_AGE_SECONDS = 3_600;

/**
 * GET /openrtb/imptracker/d.<ticket>: a demand partner's ad was rendered (widget) or started (VAST
 * player). Counted once per auction however often or concurrently it is called (countDemandImpression).
 * A push notification's impression is its delivery, counted by the push sender: its ticket (in the
 * notification's click link) counts nothing here. Always a pixel for a valid ticket; a forged one is a 404.
 */
export async function demandImpression(ctx: EngineContext, token: string, now = Date.now(), attempt?: string): Promise<EngineReply> {
  const d = ctx.demand;
  const t = decodeDemandTicket(ctx.secret, token);
  if (!t || !d) return errorReply('not_found', 'Unknown impression', { 'access-control-allow-origin': '*' });
  if (t.surface === 'push' || now / 1000 - t.issuedAt > MAX_AGE_SECONDS) return PIXEL_REPLY;
  await countDemandImpression(ctx, t, async () => (await d.wins.load(t.auctionId))?.burl, now, attempt);
  return PIXEL_REPLY;
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

/**
 * GET /c/d.<ticket>/dsp[?ttc&x&y&focus&fp&s]: a click on a partner's ad we rendered, judged as a click
 * on our own ad of its surface is (fraud/judge-click.ts): a widget's ad (native, in-page push) by the
 * widget's signals, a push notification by server-side facts (a moment after its delivery, no bot);
 * either way valid only after its impression was counted, once per auction, under the flood limit. A
 * valid click counts `clicks` for the partner and calls its `link.clicktrackers` once each (notices.ts:
 * once-only, bounded retries, the SSRF rules of every notice); any other counts `invalid_clicks`.
 * Every click is redirected to the partner's landing, checked at the auction and kept with the win
 * (win-store.ts), never taken from the link; nothing is billed (partners buy impressions). Every click is
 * also a `click` event with its partner, for the publishers' statistics.
 */
export async function demandClick(ctx: EngineContext, req: EngineRequest, floodPerMinute: number, now = Date.now(), attempt?: string): Promise<EngineReply> {
  const d = ctx.demand;
  const t = decodeDemandTicket(ctx.secret, req.params[0] ?? '');
  const surface = t?.surface === 'widget' || t?.surface === 'push' ? t.surface : undefined;
  const win = t && d && surface && req.params[1] === DEMAND_CLICK_SEGMENT ? await d.wins.load(t.auctionId) : undefined;
  // The Location header is written only from a plain http(s) URL, checked again here.
  if (!t || !d || !surface || !win?.landing || !isSafeHttpUrl(win.landing)) return errorReply('not_found', 'Unknown ad link');
  const impressionAt = await ctx.counters.countedAt('imp', `d:${t.auctionId}`);
  // A demand ticket keeps no viewer's network or browser (a notification's subscriber has none): not compared.
  const ticket = { surface, issuedAt: t.issuedAt, test: false, ipPrefix: '', uaHash: '' };
  const verdict = judgeClick({ ticket, query: req.query, userAgent: req.headers['user-agent'] ?? '', ip: req.ip, now, impressionAt });
  let reason = verdict.reason;
  // The widget's signals say nothing of the render: a click on an ad whose render was never counted is no click on a shown ad.
  if (!reason && impressionAt === undefined) reason = 'no_impression';
  const perMinute = reason ? undefined : await ctx.counters.countClick(`d:${t.auctionId}`, verdict.fingerprint, now, attempt);
  if (!reason && perMinute === undefined) reason = 'duplicate';
  if (!reason && (perMinute ?? 0) > floodPerMinute) reason = 'click_flood';
  d.stats.add(t.partnerId, reason ? 'invalid_clicks' : 'clicks');
  // Into the statistics as every click is: the publisher's zone and its viewer, bought by the partner (no
  // campaign or advertiser of ours), so a zone's clicks and CTR include its partners' ads.
  const bidId = `d:${t.auctionId}`;
  ctx.emit(
    makeEvent('click', {
      ts: now,
      engine: ctx.engineId,
      bid_id: bidId,
      campaign_id: 0,
      creative_id: 0,
      advertiser_id: 0,
      ...inventoryFacts(t),
      ...viewerFacts(t),
      demand_partner_id: t.partnerId,
      click_id: clickIdOf(ctx.secret, bidId),
      charge_nano: 0,
      invalid: reason !== undefined,
      reason,
    }),
  );
  if (!reason) {
    (win.clicktrackers ?? []).slice(0, 3).forEach((url, i) => void d.notifier.send(`${t.auctionId}:${t.partnerId}:click${i}`, url));
  }
  return { status: 302, headers: { location: win.landing, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer-when-downgrade' } };
}
