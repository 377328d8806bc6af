import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import { makeEvent, ticketFacts } from '../events/make-event.ts';
import type { BidTicket } from '../tracking/signed-token.ts';
import type { Counters } from './ports.ts';
import { impressionCharge, settleTicket } from './settle.ts';
import type { TicketSettlePorts } from './settle.ts';
import { ticketExpired } from './ticket-age.ts';

/** What counting a ticket needs: settling it, the once-only marks every engine shares, and who is counting. */
export interface TicketPorts extends TicketSettlePorts {
  counters: Pick<Counters, 'countOnce' | 'countedAt'>;
  engineId: string;
}

/**
 * The uses a signed ticket is counted for:
 * - `beacon`: the widget's render beacon, the impression of a widget ad (checked against the viewer it was served to);
 * - `beacon-viewable`: the widget's viewable beacon, under the same checks, recorded silently when refused;
 * - `pixel`: a VAST Impression pixel, the impression of our own video zones and a partner's `imp`;
 * - `viewable`: the player's ViewableImpression, under no age limit;
 * - `win` and `bill`: a partner's win or billing notice, charged at the clearing price.
 */
export type TicketUse = 'beacon' | 'beacon-viewable' | 'pixel' | 'viewable' | 'win' | 'bill';

/**
 * Counts one use of a ticket: refused past its age limit (and, for the beacon, from another viewer), once
 * per bid however often or concurrently it arrives, apart and free for a test request, a viewable one only
 * after its counted impression, and settled (auction/settle.ts). True when it counted.
 * `price` is a notice's clearing price; `sameViewer` the beacon's viewer check.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: every /imp ticket and /b beacon counts through here
export async function countTicket(
  p: TicketPorts,
  t: BidTicket,
  use: TicketUse,
  now: number,
  attempt?: string,
  price = t.priceMicroCents,
  sameViewer = true,
): Promise<boolean> {
  if (use === 'viewable') return countViewable(p, t, now, attempt);
  if (use === 'beacon' || use === 'beacon-viewable') {
    const refused = ticketExpired(t, 'beacon', now) ? 'expired' : sameViewer ? undefined : 'mismatch';
    if (use === 'beacon-viewable') return refused === undefined && countViewable(p, t, now, attempt);
    const fields = { ts: now, engine: p.engineId, ...ticketFacts(t) };
    if (refused) {
      p.emit(makeEvent('uncounted', { ...fields, partner_id: 0, of: 'impression', reason: refused }));
      return false;
    }
    if (!(await p.counters.countOnce('imp', t.bidId, now, attempt))) return false;
    const charge = impressionCharge(bidTypeOf(p, t), t.priceMicroCents);
    return settleImpression(
      p,
      makeEvent('impression', { ...fields, price_micro_cents: t.priceMicroCents, charge_nano: charge }),
      t,
      now,
    );
  }
  const fields = { ts: now, engine: p.engineId, partner_id: t.partnerId, ...ticketFacts(t) };
  // On our own video zones (partner 0) the started ad is the impression; for OpenRTB bids the win notice counts.
  const own = t.partnerId === 0;
  if (ticketExpired(t, use, now)) {
    p.emit(
      makeEvent('uncounted', {
        ...fields,
        of: use !== 'pixel' ? 'win' : own ? 'impression' : 'imp',
        reason: 'expired',
      }),
    );
    return false;
  }
  if (!(await p.counters.countOnce(use === 'pixel' ? 'imp' : 'win', t.bidId, now, attempt))) return false;
  // A test request's ad is recorded apart and never charged.
  if (t.test) {
    p.emit(makeEvent('uncounted', { ...fields, of: use === 'pixel' ? 'imp' : 'win', reason: 'test' }));
    return false;
  }
  if (use !== 'pixel')
    return settleTicket(
      p,
      makeEvent('win', { ...fields, price_micro_cents: price, charge_nano: cpmMicroCentsToNanoPerImpression(price) }),
      t,
      now,
    );
  if (!own) {
    p.emit(makeEvent('imp', { ...fields, charge_nano: 0 }));
    return false;
  }
  return settleImpression(
    p,
    makeEvent('impression', { ...fields, charge_nano: impressionCharge(bidTypeOf(p, t), t.priceMicroCents) }),
    t,
    now,
  );
}

/** CPC campaigns pay for clicks; a campaign no longer known is charged nothing. */
const bidTypeOf = (p: TicketPorts, t: BidTicket): 'cpm' | 'cpc' => p.campaign(t.campaignId)?.bid_type ?? 'cpc';

/** An impression recorded as uncounted (its campaign stopped, its budget or balance ran out) has no viewable one either. */
async function settleImpression(
  p: TicketPorts,
  event: Parameters<typeof settleTicket>[1],
  t: BidTicket,
  now: number,
): Promise<boolean> {
  if (await settleTicket(p, event, t, now)) return true;
  await p.counters.countOnce('imp', `${t.bidId}:viewable`);
  return false;
}

/** Viewable is a kind of counted impression: never more of them than of impressions. */
async function countViewable(p: TicketPorts, t: BidTicket, now: number, attempt: string | undefined): Promise<boolean> {
  if ((await p.counters.countedAt('imp', t.bidId)) === undefined) return false;
  if (!(await p.counters.countOnce('imp', `${t.bidId}:viewable`, now, attempt))) return false;
  p.emit(makeEvent('viewable', { ts: now, engine: p.engineId, ...ticketFacts(t) }));
  return true;
}

/**
 * A player's playback event or VAST error (`reason`: the event, or `error:<code>`), recorded once per ad and
 * event. Playback events carry no viewer: the statistics count them per ad.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: every /vast playback event counts through here
export async function countPlayback(
  p: TicketPorts,
  t: BidTicket,
  reason: string,
  now: number,
  attempt?: string,
): Promise<void> {
  if (!(await p.counters.countOnce('imp', `${t.bidId}:${reason}`, now, attempt))) return;
  const { country: _c, device: _d, os: _o, browser: _b, ...facts } = ticketFacts(t);
  p.emit(makeEvent('vast', { ts: now, engine: p.engineId, reason, ...facts }));
}
