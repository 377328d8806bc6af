import type { StoredCampaign } from '@adnet/schemas/api';
import { makeEvent, ticketFacts } from '../events/make-event.ts';
import { countedClickVerdict } from '../fraud/counted-click-rules.ts';
import type { BidTicket } from '../tracking/signed-token.ts';
import type { AudienceRecorder, Counters, DirectCharger, EventSink } from './ports.ts';
import { billClick } from './settle.ts';

export interface ClickPorts {
  counters: Pick<Counters, 'countClick' | 'saveClick'>;
  direct: DirectCharger;
  emit: EventSink;
  engineId: string;
  /** Adds the clicking viewer of a watched campaign to the audiences of its clickers (docs/audiences.md). */
  audiences: AudienceRecorder;
}

/** The clicked ad, as its link names it (routes/click.ts). */
export interface ClickTarget {
  ticket: BidTicket;
  campaign: StoredCampaign | undefined;
  clickId: string;
}

/**
 * Counts a click on our own ad that its surface's rules judged (fraud/judge-click.ts): one valid click per
 * impression under the flood limit (fraud/counted-click-rules.ts), billed (auction/settle.ts billClick), a
 * `click` event either way, and the record conversions are matched against. `os` and `browser` are the
 * viewer's, as the landing URL gets them. What the click was charged, in nano-dollars.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: every /c click on our ads counts through here
export async function countClick(
  p: ClickPorts,
  target: ClickTarget,
  verdict: { reason: string | undefined; fingerprint: string },
  os: string,
  browser: string,
  now: number,
  attempt?: string,
): Promise<number> {
  const { ticket, campaign, clickId } = target;
  // An invalid click is counted nowhere: it uses up neither the impression's one click nor the flood limit.
  const reason =
    verdict.reason ?? (await countedClickVerdict(p.counters, ticket.bidId, verdict.fingerprint, now, attempt));
  const first = verdict.reason === undefined && reason !== 'duplicate';
  // Kept for conversions, one record per ticket: the first click writes it, the first valid one replaces it. It is
  // written before the charge: a request whose work fails here has charged and emitted nothing, so its replay
  // (the same attempt, counted as itself) does each once; written after, a failed write would have the replay
  // charge and emit the click a second time. So `invalid` says what the traffic rules found; a click its budget
  // or balance refused is recorded so in its event.
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
    integration: ticket.integration,
    format: ticket.format || undefined,
    ts: now,
    invalid: reason !== undefined,
    // A watched campaign's viewer, for the audiences of its converters (the admin reads it at the conversion).
    user: ticket.user || undefined,
  };
  await p.counters.saveClick(clickId, record, first);
  const bill = reason
    ? { chargeNano: 0, refusal: undefined }
    : await billClick(p.direct, campaign, now, ticket.clickMicroCents);
  const why = reason ?? bill.refusal;
  if (why === undefined && ticket.user)
    p.audiences.counted('clicked', { user: ticket.user, campaignId: ticket.campaignId }, now);
  p.emit(
    makeEvent('click', {
      ts: now,
      engine: p.engineId,
      click_id: clickId,
      invalid: why !== undefined,
      reason: why,
      charge_nano: bill.chargeNano,
      ...ticketFacts(ticket),
    }),
  );
  return bill.chargeNano;
}

/**
 * When the ad's impression was recorded, in the counters every engine shares (the click and its beacon may
 * reach different engines): the widget's render beacon, a VAST pixel or push delivery, or for a
 * partner's ad its win notice.
 */
export async function impressionTime(
  counters: Pick<Counters, 'countedAt'>,
  ticket: BidTicket,
): Promise<number | undefined> {
  const [pixel, win] = await Promise.all([
    counters.countedAt('imp', ticket.bidId),
    ticket.surface === 'openrtb' ? counters.countedAt('win', ticket.bidId) : undefined,
  ]);
  return pixel === undefined ? win : win === undefined ? pixel : Math.min(pixel, win);
}
