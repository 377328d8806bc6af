import { isSafeHttpUrl } from '@adnet/schemas/url';
import { countClick } from '../auction/count-click.ts';
import { countTicket } from '../auction/count-ticket.ts';
import type { TicketPorts } from '../auction/count-ticket.ts';
import { visitorContext, zoneImp } from '../auction/request-context.ts';
import type { ImpContext, RequestContext } from '../auction/request-context.ts';
import type { Visitor } from '../auction/request-types.ts';
import { serve } from '../auction/serve.ts';
import type { EngineContext } from '../context.ts';
import type { ZoneEntry } from '../index/engine-index.ts';
import { clickIdOf } from '../tracking/click-id.ts';
import { landingUrlOf } from '../tracking/landing-url.ts';
import { decodeTicket } from '../tracking/signed-token.ts';
import { popViewer } from './popunder.ts';
import { unfilledZone } from './zone-ad.ts';

/** A visit of a direct-link zone's URL, as its route hands it over. */
export interface DirectLinkVisit {
  entry: ZoneEntry;
  /** The visitor; its page is not asked after: a direct link is put behind any link, on any site or app. */
  visitor: Visitor;
  /** Its address, as the zone's request limit counts it. */
  ip: string;
  now: number;
}

/**
 * One visit of `/go/<subid>` (docs/ad-formats.md, direct links): the zone's auction among pop
 * campaigns (popunder and direct link), then, for a winner, the pop counted as its impression (CPM per
 * thousand pops) and the visit as its click (CPC, the click id its landing and conversions get), and the
 * winner's landing to redirect to. Invalid traffic (the bot list, an address past the zone's request limit)
 * and a visitor within the zone's cap get the zone's fallback URL, or nothing: charged nothing. Where to
 * send the visitor, or undefined for no page at all (204).
 */
export async function directLinkVisit(
  ctx: EngineContext,
  ports: TicketPorts,
  v: DirectLinkVisit,
): Promise<string | undefined> {
  const index = ctx.index();
  if (!index) return undefined;
  const { entry, visitor, now } = v;
  const flood = ctx.zoneRequests.record(entry.zone.id, v.ip, '', now);
  const rc = visitorContext(index, visitor, now, 'widget', flood);
  rc.integration = 'direct_link';
  const ic = zoneImp(rc, entry);
  const served = serve(ctx, rc, ic);
  if (!served.won) return fallback(ctx, rc, ic, served.reason);
  // Taken after the auction, so a visit with nothing to show does not use up the visitor's pop.
  const viewer = popViewer(visitor.ipPrefix, visitor.uaHash);
  let mayPop = false;
  try {
    mayPop = await ctx.pops.take(entry.zone.id, viewer, entry.zone.pop_freq_cap_hours ?? 24);
  } catch {
    // Without the shared cap nobody can tell a repeat visit: nothing is shown or charged.
  }
  const ticket = mayPop ? decodeTicket(ctx.secret, served.ticket) : undefined;
  const creative = ticket ? index.creatives.get(ticket.creativeId) : undefined;
  if (!ticket || !creative || !isSafeHttpUrl(creative.landing_url)) {
    ctx.budget.giveBack(served.candidate, served.priceMicroCents);
    return fallback(ctx, rc, ic, mayPop ? 'no_candidates' : 'frequency_cap');
  }
  await countTicket(ports, ticket, 'beacon', now);
  const campaign = index.campaigns.get(ticket.campaignId);
  const clickId = clickIdOf(ctx.secret, ticket.bidId);
  const os = ticket.os;
  const browser = ticket.browser;
  const chargeNano = await countClick(
    ctx,
    { ticket, campaign, clickId },
    { reason: undefined, fingerprint: viewer },
    os,
    browser,
    now,
  );
  return landingUrlOf(creative.landing_url, ticket, { clickId, bidType: campaign?.bid_type, chargeNano, os, browser });
}

/** The zone's fallback URL (an html fallback cannot be redirected to), after the no-bid is recorded. */
function fallback(
  ctx: EngineContext,
  rc: RequestContext,
  ic: ImpContext,
  reason: Parameters<typeof unfilledZone>[3],
): string | undefined {
  const f = unfilledZone(ctx, rc, ic, reason, true);
  return f?.fallback.type === 'url' && isSafeHttpUrl(f.fallback.value) ? f.fallback.value : undefined;
}
