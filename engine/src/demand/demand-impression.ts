import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import type { Counters, EventSink } from '../auction/ports.ts';
import { inventoryFacts, makeEvent, viewerFacts } from '../events/make-event.ts';
import type { DemandTicket } from './demand-ticket.ts';
import type { SupplyDeps } from './supply.ts';

/** What counting a partner's impression reaches: the routes pass the engine's context, the push sender its own ports. */
export interface DemandImpressionPorts {
  /** Absent: no supply side, nothing to count. */
  demand?: Pick<SupplyDeps, 'stats' | 'notifier'>;
  counters: Pick<Counters, 'countOnce'>;
  emit: EventSink;
  engineId: string;
}

/**
 * Counts a partner's impression once per auction, however often or concurrently it is reported (a
 * once-only mark shared by every engine): the first count adds the partner's impression and revenue,
 * emits the event that credits the publisher, and sends the billing notice (`burl`), once. What our
 * impression tracker does for pages and players, and the push sender at a notification's delivery.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: every partner impression counts through here
export async function countDemandImpression(
  ctx: DemandImpressionPorts,
  t: DemandTicket,
  burlOf: () => Promise<string | undefined>,
  at = Date.now(),
  attempt?: string,
): Promise<boolean> {
  const d = ctx.demand;
  if (!d || !(await ctx.counters.countOnce('imp', `d:${t.auctionId}`, at, attempt))) return false;
  // Revenue in nano-dollars per impression at the clearing price (CPM), as our own impressions are charged.
  const revenueNano = cpmMicroCentsToNanoPerImpression(t.priceMicroCents);
  d.stats.add(t.partnerId, 'impressions');
  d.stats.add(t.partnerId, 'revenue_nano', revenueNano);
  // Into the statistics and the publisher's earnings, through the event pipeline our own impressions take.
  ctx.emit(demandImpressionEvent(ctx.engineId, t, revenueNano));
  const burl = await burlOf();
  if (burl) void d.notifier.send(`${t.auctionId}:${t.partnerId}:burl`, burl);
  return true;
}

/** The counted impression's event: on the ticket's zone, to its viewer, bought by its partner at the clearing price. */
export function demandImpressionEvent(engine: string, t: DemandTicket, chargeNano: number) {
  return makeEvent('demand_impression', {
    ts: Date.now(),
    engine,
    integration: t.integration,
    format: t.format || undefined,
    ...inventoryFacts(t),
    ...viewerFacts(t),
    demand_partner_id: t.partnerId,
    auction_id: t.auctionId,
    price_micro_cents: t.priceMicroCents,
    charge_nano: chargeNano,
  });
}
