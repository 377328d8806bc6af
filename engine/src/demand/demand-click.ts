import type { Counters, EventSink } from '../auction/ports.ts';
import { inventoryFacts, makeEvent, viewerFacts } from '../events/make-event.ts';
import { countedClickVerdict } from '../fraud/counted-click-rules.ts';
import { clickIdOf } from '../tracking/click-id.ts';
import type { DemandTicket } from './demand-ticket.ts';
import type { SupplyDeps } from './supply.ts';
import type { DemandWin } from './win-store.ts';

export interface DemandClickPorts {
  counters: Pick<Counters, 'countClick'>;
  emit: EventSink;
  engineId: string;
  secret: string;
}

/**
 * Counts a click on a partner's ad that its surface's rules judged (fraud/judge-click.ts): once per
 * auction under the flood limit (fraud/counted-click-rules.ts). A valid click counts `clicks` for the
 * partner and calls its `link.clicktrackers` once each (notices.ts: once-only, bounded retries, the SSRF
 * rules of every notice); any other counts `invalid_clicks`. Nothing is billed (partners buy impressions).
 * Every click is also a `click` event with its partner, for the publishers' statistics.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: every /c click on a partner's ad counts through here
export async function countDemandClick(
  p: DemandClickPorts,
  d: SupplyDeps,
  t: DemandTicket,
  win: DemandWin,
  verdict: { reason: string | undefined; fingerprint: string },
  now: number,
  attempt?: string,
): Promise<void> {
  const bidId = `d:${t.auctionId}`;
  const reason = verdict.reason ?? (await countedClickVerdict(p.counters, bidId, verdict.fingerprint, now, attempt));
  d.stats.add(t.partnerId, reason ? 'invalid_clicks' : 'clicks');
  // Into the statistics as every click is: the publisher's zone and its viewer, bought by the partner (no
  // campaign or advertiser of ours), so a zone's clicks and CTR include its partners' ads.
  p.emit(
    makeEvent('click', {
      ts: now,
      engine: p.engineId,
      bid_id: bidId,
      campaign_id: 0,
      creative_id: 0,
      advertiser_id: 0,
      integration: t.integration,
      format: t.format || undefined,
      ...inventoryFacts(t),
      ...viewerFacts(t),
      demand_partner_id: t.partnerId,
      click_id: clickIdOf(p.secret, bidId),
      charge_nano: 0,
      invalid: reason !== undefined,
      reason,
    }),
  );
  if (!reason) {
    (win.clicktrackers ?? [])
      .slice(0, 3)
      .forEach((url, i) => void d.notifier.send(`${t.auctionId}:${t.partnerId}:click${i}`, url));
  }
}
