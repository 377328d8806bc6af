import { isSafeHttpUrl } from '@adnet/schemas/url';
import { billClick, clickChargeNano } from '../../auction/settle.ts';
import type { EngineContext } from '../../context.ts';
import { makeEvent, ticketFacts } from '../../events/make-event.ts';
import { clickIdOf } from '../../tracking/click-id.ts';
import { judgeClick } from '../../fraud/judge-click.ts';
import { landingUrlOf } from '../../tracking/landing-url.ts';
import { decodeTicket } from '../../tracking/signed-token.ts';
import type { BidTicket } from '../../tracking/signed-token.ts';
import { errorReply } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { userAgentFacts } from '../../audience/user-agent.ts';
import { isDemandToken } from '../../demand/demand-ticket.ts';
import { demandClick } from './demand.ts';
import { NotJudgedYet } from '../../journal/journaled-route.ts';
import type { OfflineAnswer, RunOptions } from '../../journal/journaled-route.ts';

/** More valid-looking clicks than this from one fingerprint in a minute are a flood. */
const FLOOD_PER_MINUTE = 5;

/**
 * GET /c/<impression id>/<tracking token>?ttc&x&y&focus&fp&s: records the
 * click (valid, or invalid with the fraud rule it broke, or unbilled because
 * its campaign stopped or its budget or balance ran out) and redirects to the
 * landing page with its macros filled in (tracking/landing-url.ts). Invalid clicks still reach the
 * landing page: a person should never be stranded, only not billed.
 */
export function clickRoute(ctx: EngineContext) {
  return async (req: EngineRequest, now = Date.now(), attempt?: string, run?: RunOptions): Promise<EngineReply> => {
    // A click on a demand partner's ad we rendered (native, push): its own signed ticket and landing.
    if (isDemandToken(req.params[0] ?? '')) return demandClick(ctx, req, FLOOD_PER_MINUTE, now, attempt);
    const target = clickTarget(ctx, req);
    if (!target) return errorReply('not_found', 'Unknown ad link');
    const { ticket, creative, campaign, clickId } = target;
    const ua = req.headers['user-agent'] ?? '';
    // The click path's one read before the verdict: a widget ad's render beacon, or another surface's impression.
    const impressionAt = await impressionTime(ctx, ticket);
    const verdict = judgeClick({ ticket, query: req.query, userAgent: ua, ip: req.ip, now, impressionAt });
    if (run?.answered?.late) throw new NotJudgedYet('answered past the deadline before it was judged');
    if (verdict.reason === 'not_rendered' && (run?.deferUnrendered || (await run?.journalPending?.()))) throw new NotJudgedYet('render not counted yet');
    let reason = verdict.reason;
    const perMinute = reason ? undefined : await ctx.counters.countClick(ticket.bidId, verdict.fingerprint, now, attempt);
    const first = perMinute !== undefined;
    if (!reason && !first) reason = 'duplicate';
    if (!reason && (perMinute ?? 0) > FLOOD_PER_MINUTE) reason = 'click_flood';
    const bill = reason ? { chargeNano: 0, refusal: undefined } : await billClick(ctx.direct, campaign, now, ticket.clickMicroCents);
    reason ??= bill.refusal;
    const invalid = reason !== undefined;
    ctx.emit(makeEvent('click', { ts: now, engine: ctx.engineId, click_id: clickId, invalid, reason, charge_nano: bill.chargeNano, ...ticketFacts(ticket) }));
    // The viewer the ad was served to; a ticket signed before it carried them: the clicking browser.
    const os = ticket.os || userAgentFacts(ua).os || '';
    const browser = ticket.browser || userAgentFacts(ua).browser || '';
    // Kept for conversions, one record per ticket: the first click writes it, the first valid one replaces it.
    const record = {
      campaign_id: ticket.campaignId,
      creative_id: ticket.creativeId,
      advertiser_id: ticket.advertiserId,
      publisher_id: ticket.publisherId,
      site_id: ticket.siteId,
      zone_id: ticket.zoneId,
      source: ticket.source || undefined,
      country: ticket.country || undefined,
      device: ticket.device || undefined,
      os: os || undefined,
      browser: browser || undefined,
      vertical: campaign?.vertical,
      ts: now,
      invalid,
    };
    await ctx.counters.saveClick(clickId, record, first);
    const landing = landingUrlOf(creative.landing_url, ticket, { clickId, bidType: campaign?.bid_type, chargeNano: bill.chargeNano, os, browser });
    // The redirect writes no Location that is not a plain http(s) URL.
    return landing ? redirect(landing) : errorReply('not_found', 'Unknown ad link');
  };
}

const redirect = (location: string): EngineReply => ({
  status: 302,
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer-when-downgrade' },
});

/** What a click link must be before anything is counted: a signed ticket, the creative it names with its token, a plain http(s) landing. */
function clickTarget(ctx: EngineContext, req: EngineRequest) {
  const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
  const creative = ticket ? ctx.index()?.creatives.get(ticket.creativeId) : undefined;
  if (!ticket || !creative || creative.tracking_token !== req.params[1]) return undefined;
  // The Location header is written from stored data: a landing URL kept before the API refused line
  // breaks and other schemes must not split the response or send the visitor to a script.
  if (!isSafeHttpUrl(creative.landing_url)) return undefined;
  return { ticket, creative, campaign: ctx.index()?.campaigns.get(ticket.campaignId), clickId: clickIdOf(ctx.secret, ticket.bidId) };
}

/**
 * The click's answer while Redis is away: the same redirect once the link checks out, its `{cost}` the CPC
 * charge the click would pay if valid (the replay judges it). A partner's click has its landing in Redis
 * only: it is answered 503 and not journaled.
 */
export function clickOffline(ctx: EngineContext): OfflineAnswer {
  return (req) => {
    if (isDemandToken(req.params[0] ?? '')) return { reply: errorReply('unavailable', 'Try again in a moment'), journal: false };
    const target = clickTarget(ctx, req);
    if (!target) return { reply: errorReply('not_found', 'Unknown ad link'), journal: false };
    const { ticket, creative, campaign, clickId } = target;
    const ua = req.headers['user-agent'] ?? '';
    const os = ticket.os || userAgentFacts(ua).os || '';
    const browser = ticket.browser || userAgentFacts(ua).browser || '';
    const chargeNano = campaign?.bid_type === 'cpc' ? clickChargeNano(campaign, ticket.clickMicroCents) : 0;
    const landing = landingUrlOf(creative.landing_url, ticket, { clickId, bidType: campaign?.bid_type, chargeNano, os, browser });
    return landing ? { reply: redirect(landing), journal: true } : { reply: errorReply('not_found', 'Unknown ad link'), journal: false };
  };
}

/**
 * When the ad's impression was recorded, in the counters every engine shares (the click and its beacon may
 * reach different engines): the widget's render beacon, a VAST pixel or push delivery, or for a
 * partner's ad its win notice.
 */
async function impressionTime(ctx: EngineContext, ticket: BidTicket): Promise<number | undefined> {
  const [pixel, win] = await Promise.all([
    ctx.counters.countedAt('imp', ticket.bidId),
    ticket.surface === 'openrtb' ? ctx.counters.countedAt('win', ticket.bidId) : undefined,
  ]);
  return pixel === undefined ? win : win === undefined ? pixel : Math.min(pixel, win);
}
