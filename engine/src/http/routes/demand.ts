import type { EngineContext } from '../../context.ts';
import { decodeDemandTicket } from '../../demand/demand-ticket.ts';
import { countDemandImpression } from '../../demand/demand-impression.ts';
import { isSafeHttpUrl } from '@adnet/schemas/url';
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
export async function demandImpression(ctx: EngineContext, token: string): Promise<EngineReply> {
  const d = ctx.demand;
  const t = decodeDemandTicket(ctx.secret, token);
  if (!t || !d) return errorReply('not_found', 'Unknown impression', { 'access-control-allow-origin': '*' });
  if (t.surface === 'push' || Date.now() / 1000 - t.issuedAt > MAX_AGE_SECONDS) return PIXEL_REPLY;
  await countDemandImpression(ctx, t, async () => (await d.wins.load(t.auctionId))?.burl);
  return PIXEL_REPLY;
}

/**
 * GET /c/d.<ticket>/dsp: a click on a partner's push notification. Counted once per auction for the
 * partner (`clicks`; the partner pays per impression, so nothing is billed) and redirected to the
 * partner's landing, which the auction checked as a campaign's landing is (native.ts readPushAnswer).
 */
export async function demandClick(ctx: EngineContext, token: string): Promise<EngineReply> {
  const d = ctx.demand;
  const t = decodeDemandTicket(ctx.secret, token);
  const win = t && d && t.surface === 'push' ? await d.wins.load(t.auctionId) : undefined;
  // The Location header is written only from a landing we checked and stored, never from the link itself.
  if (!t || !d || !win?.landing || !isSafeHttpUrl(win.landing)) return errorReply('not_found', 'Unknown ad link');
  if (await ctx.counters.countOnce('click', `d:${t.auctionId}`)) d.stats.add(t.partnerId, 'clicks');
  return { status: 302, headers: { location: win.landing, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer-when-downgrade' } };
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
