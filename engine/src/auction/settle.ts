import type { EventOf } from '@adnet/schemas/events';
import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import type { EventSink, SpendRecorder } from './ports.ts';

export interface SettlePorts {
  spend: SpendRecorder;
  emit: EventSink;
}

/** Every event that can cost an advertiser money. */
export type PaidEvent = EventOf<'win'> | EventOf<'imp'> | EventOf<'impression'> | EventOf<'click'>;

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
