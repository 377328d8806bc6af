import type { StoredCampaign } from '@adnet/schemas/api';
import { budgetDay } from '@adnet/schemas/budget-day';
import type { EventOf } from '@adnet/schemas/events';
import { cpcMicroCentsToNano, cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import type { ClickCharger, EventSink, SpendRecorder } from './ports.ts';

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
  if (event.charge_nano > 0) ports.spend.recordSpend(event.campaign_id, event.advertiser_id, budgetDay, event.charge_nano, bidEngine);
  ports.emit(event);
}

/** What one impression costs: its price for CPM campaigns; CPC campaigns pay for clicks instead. */
export const impressionCharge = (bidType: 'cpm' | 'cpc', priceMicroCents: number): number =>
  bidType === 'cpm' ? cpmMicroCentsToNanoPerImpression(priceMicroCents) : 0;

/** Why a click is not billed, beyond the fraud rules: the campaign stopped, or its budget or balance ran out. */
export type ClickRefusal = 'campaign_not_active' | 'budget_exhausted' | 'balance_exhausted';

/**
 * What a click that passed the fraud rules costs. A CPC campaign pays its bid, charged first against
 * its daily budget and its advertiser's balance (never past either); a paused or archived campaign,
 * as the engine's index knows it, pays nothing; CPM campaigns pay for impressions, not clicks.
 */
export async function billClick(
  charger: ClickCharger,
  campaign: StoredCampaign | undefined,
  at: number,
): Promise<{ chargeNano: number; refusal: ClickRefusal | undefined }> {
  if (!campaign || campaign.status !== 'active') return { chargeNano: 0, refusal: 'campaign_not_active' };
  if (campaign.bid_type !== 'cpc') return { chargeNano: 0, refusal: undefined };
  const nano = cpcMicroCentsToNano(campaign.bid_micro_cents);
  const result = await charger.charge({
    campaignId: campaign.id,
    advertiserId: campaign.advertiser_id,
    dailyBudgetCents: campaign.daily_budget_cents,
    day: budgetDay(at),
    nano,
    at,
  });
  return result === 'charged' ? { chargeNano: nano, refusal: undefined } : { chargeNano: 0, refusal: result };
}
