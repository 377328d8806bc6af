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
  /** When `kind`/`id` was first counted (milliseconds since the epoch), or undefined when it never was. */
  countedAt(kind: 'win' | 'imp' | 'click', id: string): Promise<number | undefined>;
  /** Keeps a click for its conversion postback: only if none is kept for it yet, unless `replace`. */
  saveClick(clickId: string, record: ClickRecord, replace: boolean): Promise<void>;
  /** Clicks from one fingerprint in the current minute, this one included. */
  clicksThisMinute(fingerprint: string, nowMs: number): Promise<number>;
}

/** One CPC click's price, charged against its campaign's day and its advertiser's balance. */
export interface ClickCharge {
  campaignId: number;
  advertiserId: number;
  dailyBudgetCents: number;
  /** Budget day (UTC) of the click. */
  day: string;
  nano: number;
  /** Milliseconds since the epoch, for the ledger entry. */
  at: number;
}

/** Charges a click only where the campaign's budget and the advertiser's balance still cover it. */
export interface ClickCharger {
  charge(c: ClickCharge): Promise<'charged' | 'budget_exhausted' | 'balance_exhausted'>;
}
