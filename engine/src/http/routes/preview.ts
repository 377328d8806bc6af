import { NO_BID_WORDS, PAUSED_ZONE_WORDS } from '@adnet/schemas/no-bid-words';
import type { NoBidReason } from '@adnet/schemas/events';
import { POP_ZONE_FORMATS, VIDEO_ZONE_FORMATS } from '@adnet/schemas/publisher';
import type { PopAnswer, PreviewEmpty } from '@adnet/schemas/widget';
import { CANDIDATE_FILTERS } from '../../auction/filters/index.ts';
import { visitorContext, zoneImp } from '../../auction/request-context.ts';
import { serve } from '../../auction/serve.ts';
import type { ServeDeps } from '../../auction/serve.ts';
import type { EngineContext } from '../../context.ts';
import type { ZoneEntry } from '../../index/engine-index.ts';
import { hmacSha256Base64url } from '../../tracking/hmac.ts';
import { landingUrlOf } from '../../tracking/landing-url.ts';
import { decodeTicket } from '../../tracking/signed-token.ts';
import { errorReply, json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorOf } from '../visitor.ts';
import { ownAd } from '../widget-answers.ts';

const CORS = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };

/**
 * The key a preview's tickets are signed with: derived from the tracking secret, so they are ours (the "About this
 * ad" page reads them) but no tracking route's, which check the tracking secret alone: a preview's ticket can never
 * be counted or charged, whoever sends it to a beacon, pixel or click link.
 */
export const previewSecret = (secret: string): string => hmacSha256Base64url(secret, 'adnet:preview-tickets');

/** A preview is answered only while its token lasts: 128 bits, base64url (the admin mints it). */
const TOKEN = /^[A-Za-z0-9_-]{22}$/;

/** Pacing's random draw would blank a preview at random: the publisher is shown what the campaigns could serve. */
const PREVIEW_FILTERS = CANDIDATE_FILTERS.filter((f) => f.name !== 'pacing');

const empty = (reason: NoBidReason, entry: ZoneEntry | undefined): EngineReply => {
  const text =
    reason === 'zone_not_serving' && entry?.zone.status === 'paused' ? PAUSED_ZONE_WORDS : NO_BID_WORDS[reason];
  const body: PreviewEmpty = { preview_empty: { reason, text } };
  return json(200, body, CORS);
};

/**
 * GET /preview/<subid>?t=<token>: the cabinet's live preview of a zone (docs/browser-endpoints.md). The zone's
 * auction as /imp runs it (auction/serve.ts), but nothing in it counts: the budget gate only asks whether a campaign
 * could pay (BudgetSlices.canTake), there is no viewer (no frequency cap counted), no flood record, no event, and
 * demand partners are not asked. Our ad comes back with `preview: true`, no beacon, and the landing page itself as
 * its link (macros filled as a preview's: `click_id` "preview", no cost). Nothing to show: `{preview_empty}` with the
 * reason in words. A popunder zone's preview is its pop, with no beacon. A token that is unknown, expired or for
 * another zone: 403.
 */
export function previewRoute(ctx: EngineContext) {
  const secret = previewSecret(ctx.secret);
  const deps: ServeDeps = {
    budget: { tryTake: (c, price) => ctx.budget.canTake(c, price) },
    creatives: ctx.creatives,
    secret,
    engineId: ctx.engineId,
    candidateFilters: PREVIEW_FILTERS,
  };
  return async (req: EngineRequest): Promise<EngineReply> => {
    const subid = req.params[0] ?? '';
    const token = new URLSearchParams(req.query).get('t') ?? '';
    let allowed: string | undefined;
    try {
      allowed = TOKEN.test(token) ? await ctx.previews.zoneOf(token) : undefined;
    } catch {
      // Redis away: the token cannot be checked, which says nothing about it.
      return errorReply('unavailable', 'Try again in a moment', CORS);
    }
    if (!allowed || allowed !== subid)
      return errorReply('forbidden', 'This preview link is unknown, expired or for another zone', CORS);
    const index = ctx.index();
    const entry = index?.zones.get(subid);
    if (!index || !entry) return empty('zone_not_serving', entry);
    const format = entry.zone.format;
    // A popunder zone's preview is its pop (below); a video's player and a direct link have no page to preview.
    if (VIDEO_ZONE_FORMATS.has(format) || (POP_ZONE_FORMATS.has(format) && format !== 'popunder'))
      return empty('no_candidates', entry);
    // The publisher looking at the zone from the cabinet: not a page of the zone's site, nor a visitor to judge.
    const visitor = { ...visitorOf(req), bot: false, pageHost: undefined };
    const rc = visitorContext(index, visitor, Date.now(), 'widget');
    const out = serve(deps, rc, zoneImp(rc, entry));
    if (!out.won) return empty(out.reason, entry);
    const cr = out.candidate.creative;
    const ticket = decodeTicket(secret, out.ticket);
    const landing =
      ticket &&
      landingUrlOf(cr.landing_url, ticket, {
        // No bid type: `{cost}` stays empty, where a CPM ad's would name its price.
        clickId: 'preview',
        bidType: undefined,
        chargeNano: 0,
        os: ticket.os,
        browser: ticket.browser,
      });
    if (!landing) return empty('no_candidates', entry);
    // The pop the widget opens on a click in the preview page: no beacon, so it neither counts nor takes a cap.
    if (format === 'popunder') {
      const pop: PopAnswer = { pop: { impression_id: out.ticket, url: landing, beacon_url: '' } };
      return json(200, pop, CORS);
    }
    const ad = ownAd(entry, out, landing, '');
    ad.preview = true;
    return json(200, ad, CORS);
  };
}
