import type { EngineEvent } from '@adnet/schemas/events';
import type { ClickRecord } from '@adnet/schemas/wire/click-record';
import type { Candidate } from '../index/candidate.ts';
import type { WatchedEvent } from '../index/audience-index.ts';

// What the auction core needs from the world, as interfaces: the Redis
// adapters (budget/, store/, events/) implement them, tests pass plain objects.

/** Takes budget for a bid; false when the campaign or advertiser has none left here. */
export interface BudgetGate {
  tryTake(c: Candidate, priceMicroCents: number): boolean;
}

/**
 * Whether a campaign could pay for an impression now, taking nothing: the live preview's gate
 * (routes/preview.ts), which must hold, charge and pace nothing.
 */
export interface BudgetCheck {
  canTake(c: Candidate, priceMicroCents: number): boolean;
}

/** Which of one campaign's eligible creatives serves an impression (engine/src/rotation/). */
export interface CreativePicker {
  /** `siblings`: one campaign's candidates for the impression, in rank order; at least one. */
  pick(siblings: readonly Candidate[]): Candidate;
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
  /**
   * True the first time `kind`/`id` is counted (by any engine), false after. `at`: when its request came
   * (default now); `attempt`: the engine's name for the request, so the same request run again counts as first.
   */
  countOnce(kind: 'win' | 'imp' | 'click', id: string, at?: number, attempt?: string): Promise<boolean>;
  /** When `kind`/`id` was first counted (milliseconds since the epoch), or undefined when it never was. */
  countedAt(kind: 'win' | 'imp' | 'click', id: string): Promise<number | undefined>;
  /** Keeps a click for its conversion postback: only if none is kept for it yet, unless `replace`. */
  saveClick(clickId: string, record: ClickRecord, replace: boolean): Promise<void>;
  /**
   * Counts a click on ticket `id` once (the `click` mark of `countOnce`): undefined when it was counted
   * before; else the clicks from `fingerprint` in the current minute, this one included.
   */
  countClick(id: string, fingerprint: string, nowMs: number, attempt?: string): Promise<number | undefined>;
}

/** Pops opened per visitor and zone, shared by every engine (store/pop-caps.ts). */
export interface PopCaps {
  /**
   * True when `viewer` may have a pop of zone `zoneId` now, which then holds for `capHours`; false within the cap.
   * With `holder` (a widget pop's bid id), also true when that same holder took it already.
   */
  take(zoneId: number, viewer: string, capHours: number, holder?: string): Promise<boolean>;
  /** True when `viewer` had a pop of zone `zoneId` within its cap: a widget's pop is then not served. */
  held(zoneId: number, viewer: string): Promise<boolean>;
}

/** A charge taken straight from the pools rather than from a bid's hold: a CPC click, or an ad counted after its hold lapsed. */
export interface DirectCharge {
  campaignId: number;
  advertiserId: number;
  dailyBudgetCents: number;
  /** Lifetime cap in cents, -1 for none. */
  totalBudgetCents: number;
  /**
   * The campaign's bid type: a CPM campaign's charge fits beside every engine's holds of its pools (they cover
   * impressions in flight), a CPC campaign's beside its spend alone (its holds cover nothing that is charged).
   */
  bidType: 'cpm' | 'cpc';
  /** Budget day (UTC) the charge belongs to: the click's, or the bid's. */
  day: string;
  nano: number;
  /** Milliseconds since the epoch, for the ledger entry. */
  at: number;
  /** The ledger entry's reason. */
  reason: 'click spend' | 'ad spend';
}

/** Charges only where the campaign's budgets (beside its holds, for CPM) and the advertiser's balance (beside every engine's holds) still cover it. */
export interface DirectCharger {
  charge(c: DirectCharge): Promise<'charged' | 'budget_exhausted' | 'balance_exhausted'>;
}

// ---- frequency caps (engine/src/frequency/, docs/delivery.md#frequency-caps)

/** One request's user, as far as frequency caps go: synchronous, answered from this engine's memory. */
export interface Viewer {
  /** What tickets carry to name the user: a hash of the id, never the id. */
  readonly key: string;
  /** Serving `c` now might take its campaign past its cap for this user. */
  capped(c: Candidate): boolean;
  /** This engine serves `c` to the user now. */
  served(c: Candidate): void;
  /** The user is a member of one of `audiences` now, as this engine knows it (frequency/audience-members.ts): never waits. */
  inAudience(audiences: readonly number[]): boolean;
}

/** Per-user counts of capped campaigns, shared by every engine. */
export interface FrequencyCaps {
  /**
   * The user of one request; undefined without an id (then no cap can apply, and no audience includes it).
   * `cookieId`: our own cookie's id of the browser, which pixel audiences know it by (docs/audiences.md).
   */
  viewer(userId: string | undefined, now: number, cookieId?: string): Viewer | undefined;
  /** An ad of a capped campaign was counted (win notice, beacon, pixel): adds it to the user's shared counts, without waiting. */
  counted(ad: { user: string; campaignId: number; periodHours: number; servedBy: string }, now: number): void;
}

// ---- audiences (frequency/audience-members.ts, docs/audiences.md)

/** A visitor's membership of one audience, until `ends` (ms since the epoch). */
export interface Membership {
  readonly audienceId: number;
  readonly ends: number;
}

/** Where every engine's (and the admin's) memberships meet (Redis: store/audience-store.ts). */
export interface AudienceStore {
  /** One visitor's memberships: audience id to when the membership ends (ms since the epoch). */
  read(userKey: string): Promise<Map<number, number>>;
  /** Makes the visitor a member of each audience until its `ends` (a later end already held is kept). */
  add(userKey: string, memberships: readonly Membership[], now: number): Promise<void>;
}

/** Records the audience memberships a counted impression or a valid click makes, without waiting. */
export interface AudienceRecorder {
  counted(event: WatchedEvent, ad: { user: string; campaignId: number }, now: number): void;
}
