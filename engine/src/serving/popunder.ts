import type { PopAnswer } from '@adnet/schemas/widget';
import { countClick } from '../auction/count-click.ts';
import { countTicket } from '../auction/count-ticket.ts';
import type { TicketPorts } from '../auction/count-ticket.ts';
import { visitorContext, zoneImp } from '../auction/request-context.ts';
import type { Visitor } from '../auction/request-types.ts';
import { beaconLink, serve } from '../auction/serve.ts';
import { clickChargeNano } from '../auction/settle.ts';
import { ticketExpired } from '../auction/ticket-age.ts';
import type { EngineContext } from '../context.ts';
import type { EngineIndex, ZoneEntry } from '../index/engine-index.ts';
import { clickIdOf } from '../tracking/click-id.ts';
import { landingUrlOf } from '../tracking/landing-url.ts';
import { decodeTicket } from '../tracking/signed-token.ts';
import type { BidTicket } from '../tracking/signed-token.ts';
import { unfilledZone } from './zone-ad.ts';

// A popunder zone's pop (docs/ad-formats.md, popunder zones): served ahead of the click by /imp,
// counted by its beacon /b only once the widget saw the window open. The pop is the impression and the click at
// once, as a direct link's visit is (serving/direct-link.ts), and its cap is the one /go takes.

/** A pop's viewer for the zone's cap, as tickets name viewers: the network and the user agent. */
export const popViewer = (ipPrefix: string, uaHash: string): string => `${ipPrefix}-${uaHash}`;

/** A widget's ask for a popunder zone's pop, as /imp hands it over. */
export interface PopAsk {
  entry: ZoneEntry;
  visitor: Visitor;
  /** Its address and fingerprint, as the zone's request limits count them. */
  ip: string;
  fp: string;
  now: number;
}

/**
 * The pop for one widget of a popunder zone: the zone's auction among pop campaigns under the same
 * invalid-traffic verdict as /imp's (the bot list, floods, a page on another site), unless the visitor had
 * the zone's pop within its cap. Serving takes the price from a budget hold and counts nothing. Undefined for
 * no pop (a no-bid is recorded; a popunder zone's fallback is never popped).
 */
export async function popunderAsk(ctx: EngineContext, a: PopAsk): Promise<PopAnswer | undefined> {
  const index = ctx.index();
  if (!index) return undefined;
  const { entry, visitor, now } = a;
  const flood = ctx.zoneRequests.record(entry.zone.id, a.ip, a.fp, now);
  const rc = visitorContext(index, visitor, now, 'widget', flood);
  rc.integration = 'popunder';
  const ic = zoneImp(rc, entry);
  if (!rc.rejected) {
    let held = true;
    try {
      held = await ctx.pops.held(entry.zone.id, popViewer(visitor.ipPrefix, visitor.uaHash));
    } catch {
      // Without the shared cap nobody can tell a repeat visitor: no pop is offered.
    }
    if (held) return void unfilledZone(ctx, rc, ic, 'frequency_cap', false);
  }
  const served = serve(ctx, rc, ic);
  if (!served.won) return void unfilledZone(ctx, rc, ic, served.reason, false);
  const ticket = decodeTicket(ctx.secret, served.ticket);
  const url = ticket && popLanding(ctx.secret, index, ticket);
  if (!url) {
    ctx.budget.giveBack(served.candidate, served.priceMicroCents);
    return void unfilledZone(ctx, rc, ic, 'no_candidates', false);
  }
  return { pop: { impression_id: served.ticket, url, beacon_url: beaconLink(ctx.baseUrl, served) } };
}

/**
 * The landing the pop opens, its macros filled as a click's redirect fills them: `{click_id}` the pop's click id,
 * `{cost}` what the pop costs when counted (a CPC campaign's click, a CPM one's price).
 */
export function popLanding(secret: string, index: EngineIndex, t: BidTicket): string | undefined {
  const creative = index.creatives.get(t.creativeId);
  const campaign = index.campaigns.get(t.campaignId);
  if (!creative || !campaign) return undefined;
  return landingUrlOf(creative.landing_url, t, {
    clickId: clickIdOf(secret, t.bidId),
    bidType: campaign.bid_type,
    chargeNano: campaign.bid_type === 'cpc' ? clickChargeNano(campaign, t.clickMicroCents) : 0,
    os: t.os,
    browser: t.browser,
  });
}

/** A popunder zone's ticket: /b counts it as a pop rather than a rendered ad. */
export const isPopTicket = (t: BidTicket): boolean => t.format === 'popunder' || t.format === 'direct_link';

/** One pop beacon, as /b hands it over. */
export interface PopBeacon {
  /** From the network and browser the pop was served to. */
  sameViewer: boolean;
  now: number;
  /** The request journal's name for it (http/tracking-run.ts). */
  attempt?: string;
}

/** Zones by id, made once per zone table the engine's index holds (it is replaced when a zone changes). */
const zonesById = new WeakMap<ReadonlyMap<string, ZoneEntry>, Map<number, ZoneEntry>>();
function zoneOf(index: EngineIndex, id: number): ZoneEntry | undefined {
  let byId = zonesById.get(index.zones);
  if (!byId) {
    byId = new Map();
    for (const e of index.zones.values()) byId.set(e.zone.id, e);
    zonesById.set(index.zones, byId);
  }
  return byId.get(id);
}

/**
 * Counts a pop the widget saw open: its viewer's pop of the zone taken (the cap every engine shares, as /go takes
 * it), then the impression (CPM: the price per thousand pops) and the click (CPC: its bid; the click record
 * conversions match `{click_id}` against), each once per ticket. A beacon from another viewer or past the
 * ticket's age is recorded apart (`uncounted`) and takes no cap; a visitor whose pop was taken already (another
 * tab, another engine), a replay or a forgery counts nothing. True when the pop counted.
 */
export async function countPop(ctx: EngineContext, ports: TicketPorts, t: BidTicket, b: PopBeacon): Promise<boolean> {
  const index = ctx.index();
  const valid = b.sameViewer && !ticketExpired(t, 'beacon', b.now);
  if (valid) {
    const capHours = (index && zoneOf(index, t.zoneId)?.zone.pop_freq_cap_hours) ?? 24;
    // The ticket's bid id holds the pop: a replay of this beacon finds it its own, another ticket finds it taken.
    if (!(await ctx.pops.take(t.zoneId, popViewer(t.ipPrefix, t.uaHash), capHours, t.bidId))) return false;
  }
  if (!(await countTicket(ports, t, 'beacon', b.now, b.attempt, t.priceMicroCents, b.sameViewer))) return false;
  const clickId = clickIdOf(ctx.secret, t.bidId);
  await countClick(
    ctx,
    { ticket: t, campaign: index?.campaigns.get(t.campaignId), clickId },
    { reason: undefined, fingerprint: popViewer(t.ipPrefix, t.uaHash) },
    t.os,
    t.browser,
    b.now,
    b.attempt,
  );
  return true;
}
