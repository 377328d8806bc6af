import type { NoBidReason } from '@adnet/schemas/events';
import type { FallbackAnswer } from '@adnet/schemas/widget';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import { fallbackFor } from '../auction/fallback.ts';
import type { EventSink } from '../auction/ports.ts';
import type { ImpContext, RequestContext } from '../auction/request-context.ts';
import { serve } from '../auction/serve.ts';
import type { ServeDeps, ServeOutcome } from '../auction/serve.ts';
import { DEMAND_FORMATS } from '../demand/build-request.ts';
import type { DemandSurface } from '../demand/demand-ticket.ts';
import { eligiblePartners, supplyAuction } from '../demand/supply.ts';
import type { PartnerWin, SupplyDeps } from '../demand/supply.ts';
import { audienceFacts, inventoryFacts, makeEvent } from '../events/make-event.ts';
import type { EngineIndex, ZoneEntry } from '../index/engine-index.ts';

export interface ZoneAdPorts extends ServeDeps {
  /** The supply side; absent: our campaigns alone. */
  demand?: SupplyDeps;
  auctionTimeoutMs: number;
  emit: EventSink;
}

/** How a surface offers its zones to demand partners. */
export interface ZoneSurface {
  name: DemandSurface;
  /** The share of each partner's QPS left to the other surfaces (demand/supply.ts eligiblePartners). */
  keepShare: number;
  /**
   * Only the formats partners buy (demand/build-request.ts), and never invalid traffic (a bot, a flood, a tag on
   * someone else's page): not ours to sell. Push zones have a format of their own and no page view to judge.
   */
  screened: boolean;
}

export const WIDGET_SURFACE: ZoneSurface = { name: 'widget', keepShare: 0, screened: true };
export const VAST_SURFACE: ZoneSurface = { name: 'vast', keepShare: 0, screened: true };

/** Who asked, as partners' requests tell it: the request's headers and address (none for a push delivery). */
export interface Asker {
  headers: Readonly<Record<string, string | undefined>>;
  ip: string;
}

/** Our ad (won or not), or a partner's. */
export type ZoneAd = ServeOutcome | PartnerWin;

/**
 * When a zone's auction starts, for its deadline: no clock read unless some partner might bid, so the
 * path without partners stays as it was.
 */
export const zoneAuctionStart = (p: ZoneAdPorts, index: EngineIndex): number =>
  p.demand && index.demandPartners.length > 0 ? p.demand.now() : 0;

/**
 * "Our ad, a partner's, or none" for one zone impression, for every door (/imp, /vast, push): our
 * campaigns' auction (auction/serve.ts), then, when some partner may bid, one auction between our best
 * bid and theirs (demand/supply.ts), all within the auction's deadline from `started`
 * (zoneAuctionStart). Without partners it answers at once, allocating no promise.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: the auction of every /imp, /vast and push request
export function zoneAd(
  p: ZoneAdPorts,
  rc: RequestContext,
  ic: ImpContext,
  entry: ZoneEntry,
  surface: ZoneSurface,
  asker: Asker,
  /**
   * The user's key for partners, asked only when some partner may bid: a widget visitor's is a hash looked up
   * and kept in the frequency caps' cache, which every /imp paying for it cost 30 us and 100 MiB in bench:wrk.
   */
  userKey: () => string | undefined,
  started: number,
): ZoneAd | Promise<ZoneAd> {
  const out = serve(p, rc, ic);
  const d = p.demand;
  const index = rc.index;
  if (!d || index.demandPartners.length === 0) return out;
  if (surface.screened && (!DEMAND_FORMATS.has(entry.zone.format) || rc.rejected)) return out;
  const site = index.sites.get(entry.zone.site_id);
  if (!site) return out;
  const partners = eligiblePartners(
    d,
    index.demandPartners,
    entry.zone.format,
    rc.country,
    d.now(),
    (id, why) => d.stats.add(id, why),
    surface.keepShare,
  );
  if (!partners) return out;
  const referer = asker.headers.referer ?? '';
  const supplied = supplyAuction(d, {
    partners,
    own: out,
    startedAt: started,
    auctionTimeoutMs: p.auctionTimeoutMs,
    surface: surface.name,
    integration: rc.integration,
    blockedDomains: entry.controls.blockedDomains,
    browser: rc.browser,
    source: entry.source,
    imp: {
      zone: entry.zone,
      site,
      floorMicroCents: entry.controls.floorMicroCents,
      ua: asker.headers['user-agent'] ?? '',
      ip: asker.ip,
      country: rc.country,
      device: rc.device,
      os: rc.os,
      language: rc.language,
      page: referer && referer.length <= 2048 && isSafeHttpUrl(referer) ? referer : undefined,
      userKey: userKey(),
      vastVersion: ic.vastVersion,
    },
  });
  return supplied.then((o) => (o.kind === 'partner' ? o : o.kind === 'own' ? o.served : out));
}

/**
 * A zone impression nothing filled: its `nobid` event and, when `withFallback` (display zones), the
 * publisher's fallback (auction/fallback.ts) with its `fallback` event.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: every zone impression nothing filled
export function unfilledZone(
  p: { emit: EventSink; engineId: string },
  rc: RequestContext,
  ic: ImpContext,
  reason: NoBidReason,
  withFallback: boolean,
): FallbackAnswer | undefined {
  const facts = {
    ts: rc.ts,
    engine: p.engineId,
    integration: rc.integration,
    // The zone's format, so a publisher's unfilled requests split by format as its impressions do.
    format: ic.zone?.zone.format,
    reason,
    ...inventoryFacts(ic.inventory),
    ...audienceFacts(rc),
  };
  p.emit(makeEvent('nobid', facts));
  const fallback = withFallback ? fallbackFor(ic.controls, reason) : undefined;
  if (fallback) p.emit(makeEvent('fallback', facts));
  return fallback;
}
