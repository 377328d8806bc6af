import type { EngineEvent } from '@adnet/schemas/events';
import type { ClickRecord } from '@adnet/schemas/wire/click-record';
import type { Candidate } from '../index/candidate.ts';

// What the auction core needs from the world, as interfaces: the Redis
// adapters (budget/, store/, events/) implement them, tests pass plain objects.

/** Takes budget for a bid; false when the campaign or advertiser has none left here. */
export interface BudgetGate {
  tryTake(c: Candidate, priceMicroCents: number): boolean;
}

/** The budget the bid path uses: take a bid's price, or give it back when the bid is not sent. */
export interface BidBudget extends BudgetGate {
  giveBack(c: Candidate, priceMicroCents: number): void;
}

/** Adds settled spend (nano-dollars) to a campaign's day and its advertiser, releasing the bidding engine's hold. */
export interface SpendRecorder {
  recordSpend(campaignId: number, advertiserId: number, day: string, nano: number, bidEngine: string): void;
}

/** Where events go: a push onto the batcher, never a wait. */
export type EventSink = (event: EngineEvent) => void;

/** Once-only marks and per-click records, shared by every engine. */
export interface Counters {
  /** True the first time `kind`/`id` is counted (by any engine), false after. */
  countOnce(kind: 'win' | 'imp' | 'click', id: string): Promise<boolean>;
  /** Keeps a click for its conversion postback. */
  saveClick(clickId: string, record: ClickRecord): Promise<void>;
  /** Clicks from one fingerprint in the current minute, this one included. */
  clicksThisMinute(fingerprint: string, nowMs: number): Promise<number>;
}
