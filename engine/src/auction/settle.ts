import type { StoredCampaign } from '@adnet/schemas/api';
import { budgetDay } from '@adnet/schemas/budget-day';
import type { EventOf } from '@adnet/schemas/events';
import { cpcMicroCentsToNano, cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import { makeEvent } from '../events/make-event.ts';
import type { BidTicket } from '../tracking/signed-token.ts';
import type { AudienceRecorder, DirectCharger, EventSink, FrequencyCaps, SpendRecorder } from './ports.ts';
import { holdMayHaveLapsed } from './ticket-age.ts';

export interface SettlePorts {
  spend: SpendRecorder;
  emit: EventSink;
}

/** Every event paid from a budget hold: wins and impressions (clicks are charged by `billClick`). */
export type PaidEvent = EventOf<'win'> | EventOf<'imp'> | EventOf<'impression'>;

/**
 * The one way money moves on the serving path: the event's own `charge_nano`
 * is what is recorded as spend (so the statistics and the budget cannot
 * disagree), against the budget day of the bid and the engine whose hold
 * covered it; then the event is emitted.
 */
export function settle(ports: SettlePorts, event: PaidEvent, budgetDay: string, bidEngine: string): void {
  if (event.charge_nano > 0)
    ports.spend.recordSpend(event.campaign_id, event.advertiser_id, budgetDay, event.charge_nano, bidEngine);
  ports.emit(event);
}

/** What one impression costs: its price for CPM campaigns; CPC campaigns pay for clicks instead. */
export const impressionCharge = (bidType: 'cpm' | 'cpc', priceMicroCents: number): number =>
  bidType === 'cpm' ? cpmMicroCentsToNanoPerImpression(priceMicroCents) : 0;

/** Why something countable is not charged, beyond the fraud rules: the campaign stopped, or its budget or balance ran out. */
export type ChargeRefusal = 'campaign_not_active' | 'budget_exhausted' | 'balance_exhausted';

/** Charges `nano` straight against the campaign's daily pool and the advertiser's balance: never past either, nothing for a stopped campaign. */
async function chargeDirect(
  charger: DirectCharger,
  campaign: StoredCampaign | undefined,
  c: { day: string; nano: number; at: number; reason: 'click spend' | 'ad spend' },
): Promise<ChargeRefusal | undefined> {
  if (!campaign || campaign.status !== 'active') return 'campaign_not_active';
  const result = await charger.charge({
    campaignId: campaign.id,
    advertiserId: campaign.advertiser_id,
    dailyBudgetCents: campaign.daily_budget_cents,
    totalBudgetCents: campaign.total_budget_cents ?? -1,
    bidType: campaign.bid_type,
    ...c,
  });
  return result === 'charged' ? undefined : result;
}

/** A CPC click's price: the adjusted bid its ticket carries, else the campaign's bid. */
export const clickChargeNano = (campaign: StoredCampaign, clickMicroCents = 0): number =>
  cpcMicroCentsToNano(clickMicroCents > 0 ? clickMicroCents : campaign.bid_micro_cents);

/**
 * What a click that passed the fraud rules costs. A CPC campaign pays its bid (`clickMicroCents`, the
 * adjusted bid the signed ticket carries, when a bid adjustment applied at the auction), charged first against
 * its daily budget and its advertiser's balance (never past either); a paused or archived campaign,
 * as the engine's index knows it, pays nothing; CPM campaigns pay for impressions, not clicks.
 */
export async function billClick(
  charger: DirectCharger,
  campaign: StoredCampaign | undefined,
  at: number,
  clickMicroCents = 0,
): Promise<{ chargeNano: number; refusal: ChargeRefusal | undefined }> {
  if (campaign?.status === 'active' && campaign.bid_type !== 'cpc') return { chargeNano: 0, refusal: undefined };
  const nano = campaign ? clickChargeNano(campaign, clickMicroCents) : 0;
  const refusal = await chargeDirect(charger, campaign, { day: budgetDay(at), nano, at, reason: 'click spend' });
  return refusal ? { chargeNano: 0, refusal } : { chargeNano: nano, refusal: undefined };
}

export interface TicketSettlePorts extends SettlePorts {
  direct: DirectCharger;
  /** Counts a capped campaign's counted ad against its user's cap. */
  caps: FrequencyCaps;
  /** Adds the viewer of a watched campaign's counted ad to the audiences of its viewers (docs/audiences.md). */
  audiences: AudienceRecorder;
  /** The campaign as the engine's index knows it now. */
  campaign(id: number): StoredCampaign | undefined;
}

/**
 * Settles what a ticket's beacon, pixel or win notice counted. A campaign that is no longer active (as
 * the engine's index knows it: paused, archived, or gone) is charged nothing, however early the ad is
 * counted: the ad is recorded as uncounted (`campaign_not_active`, as its clicks are) and the bid's hold
 * goes back to the pool with the lost bids' when it lapses. Within the bid's hold its price is held in
 * the bidding engine's slice, and the spend is recorded against that hold (`settle`). Later the hold
 * may have gone back to the pool, so the charge is taken straight from the campaign's daily budget
 * and the advertiser's balance, only where they still cover it; when they do not, the ad is recorded
 * as uncounted with the reason and costs nothing. Either way nothing is spent past a budget or a
 * balance. True when it counted.
 */
export async function settleTicket(
  ports: TicketSettlePorts,
  event: PaidEvent,
  ticket: BidTicket,
  now: number,
): Promise<boolean> {
  const day = budgetDay(ticket.issuedAt * 1000);
  const campaign = ports.campaign(event.campaign_id);
  let refusal: ChargeRefusal | undefined = campaign?.status === 'active' ? undefined : 'campaign_not_active';
  if (!refusal && (event.charge_nano === 0 || !holdMayHaveLapsed(ticket, now))) {
    settle(ports, event, day, ticket.engine);
    countForViewer(ports, ticket, now);
    return true;
  }
  refusal ??= await chargeDirect(ports.direct, campaign, { day, nano: event.charge_nano, at: now, reason: 'ad spend' });
  if (!refusal) {
    ports.emit(event);
    countForViewer(ports, ticket, now);
    return true;
  }
  const e = event;
  const facts = {
    ts: e.ts,
    engine: e.engine,
    integration: e.integration,
    bid_id: e.bid_id,
    campaign_id: e.campaign_id,
    creative_id: e.creative_id,
    advertiser_id: e.advertiser_id,
  };
  const where = {
    publisher_id: e.publisher_id,
    site_id: e.site_id,
    zone_id: e.zone_id,
    country: e.country,
    device: e.device,
    os: e.os,
    browser: e.browser,
  };
  ports.emit(
    makeEvent('uncounted', { ...facts, ...where, partner_id: e.partner_id ?? 0, of: e.type, reason: refusal }),
  );
  return false;
}

/**
 * A counted ad of a capped campaign counts against its user's cap (the cap as the campaign has it now); one
 * of a watched campaign makes its user a member of the audiences of its viewers.
 */
function countForViewer(ports: TicketSettlePorts, ticket: BidTicket, now: number): void {
  if (!ticket.user) return;
  ports.audiences.counted('viewed', { user: ticket.user, campaignId: ticket.campaignId }, now);
  const cap = ports.campaign(ticket.campaignId)?.frequency_cap;
  if (cap)
    ports.caps.counted(
      { user: ticket.user, campaignId: ticket.campaignId, periodHours: cap.period_hours, servedBy: ticket.engine },
      now,
    );
}
