import type { EngineContext } from '../../context.ts';
import { DEMAND_CLICK_SEGMENT, decodeDemandTicket } from '../../demand/demand-ticket.ts';
import { countDemandImpression } from '../../demand/demand-impression.ts';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import { judgeClick } from '../../fraud/judge-click.ts';
import { countDemandClick } from '../../demand/demand-click.ts';
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
export async function demandImpression(
  ctx: EngineContext,
  token: string,
  now = Date.now(),
  attempt?: string,
): Promise<EngineReply> {
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
      headers: {
        'content-type': 'application/xml; charset=utf-8',
        'cache-control': 'no-store',
        'access-control-allow-origin': '*',
      },
      body: win.adm,
    };
  };
}

/**
 * GET /c/d.<ticket>/dsp[?ttc&x&y&focus&fp&s]: a click on a partner's ad we rendered, judged as a click
 * on our own ad of its surface is (fraud/judge-click.ts): a widget's ad (native, in-page push) by the
 * widget's signals after its counted render (the widget's call of our impression tracker, else
 * `not_rendered`), a push notification by server-side facts (a moment after its delivery, no bot); then
 * counted (demand/demand-click.ts). Every click is redirected to the partner's landing, checked at the
 * auction and kept with the win (win-store.ts), never taken from the link.
 */
export async function demandClick(
  ctx: EngineContext,
  req: EngineRequest,
  now = Date.now(),
  attempt?: string,
): Promise<EngineReply> {
  const d = ctx.demand;
  const t = decodeDemandTicket(ctx.secret, req.params[0] ?? '');
  const surface = t?.surface === 'widget' || t?.surface === 'push' ? t.surface : undefined;
  const win = t && d && surface && req.params[1] === DEMAND_CLICK_SEGMENT ? await d.wins.load(t.auctionId) : undefined;
  // The Location header is written only from a plain http(s) URL, checked again here.
  if (!t || !d || !surface || !win?.landing || !isSafeHttpUrl(win.landing))
    return errorReply('not_found', 'Unknown ad link');
  const impressionAt = await ctx.counters.countedAt('imp', `d:${t.auctionId}`);
  // A demand ticket keeps no viewer's network or browser (a notification's subscriber has none): not compared.
  const ticket = { surface, issuedAt: t.issuedAt, test: false, ipPrefix: '', uaHash: '' };
  const verdict = judgeClick({
    ticket,
    query: req.query,
    userAgent: req.headers['user-agent'] ?? '',
    ip: req.ip,
    now,
    impressionAt,
  });
  await countDemandClick(ctx, d, t, win, verdict, now, attempt);
  return {
    status: 302,
    headers: { location: win.landing, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer-when-downgrade' },
  };
}
