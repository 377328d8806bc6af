import { usdToCents as cents } from '@adnet/schemas/money';
import { CPA_MIN_CONVERSIONS } from '@adnet/schemas/target-cpa';
import type { ZoneBidEntry, ZoneBidState } from '@adnet/schemas/target-cpa';

// Target CPA, per zone of one campaign (docs/delivery.md, "Target CPA"): a state machine (testing, excluded,
// optimised) and the bid controller of the optimised zones. Plain functions over counts; the admin's pass
// (admin/src/cpa/) reads the counts from Redis and writes the decisions as config kind `campaign_zone_bids`.

/** What the campaign asks, in the units the counts are kept in. */
export interface CpaGoal {
  targetCpaNano: number;
  testBudgetNano: number;
  /** The campaign's own bid: the highest any zone gets. */
  maxBidMicroCents: number;
}

/** One zone's counts since the campaign has had its target, summed over every engine. */
export interface ZoneCounts {
  spendNano: number;
  conversions: number;
}

/** What the controller remembers of an optimised zone between passes (the stored decision). */
export interface ZoneMemory {
  state: 'excluded' | 'optimised';
  bidMicroCents: number;
  /** The zone's spend when its bid last moved: the next step waits for new evidence past it. */
  steppedAtSpendNano: number;
  /** Its conversions then. */
  steppedAtConversions: number;
  /** Spend and conversions with older steps' evidence decayed by CPA_DECAY a step: the eCPA the controller follows. */
  recentSpendNano: number;
  recentConversions: number;
}

export interface ZoneDecision extends Omit<ZoneMemory, 'state'> {
  state: ZoneBidState;
  reason: string;
}

// The controller: a bounded multiplicative controller on the eCPA error. Each step multiplies the zone's bid by
// (target / eCPA) ^ CPA_GAIN, kept within [1 / (1 + CPA_MAX_STEP), 1 + CPA_MAX_STEP]: an eCPA above the target
// lowers the bid, one below raises it, and the square root damps the noise of a few conversions. The eCPA is the
// zone's recent one: spend and conversions since the last step added to the earlier ones decayed by CPA_DECAY,
// so it follows what the current bid buys (a lifetime eCPA would keep paying back the testing phase's spend long
// after the bid is right). A step waits until the zone spent another target's worth since the last one (about one
// more conversion of evidence): a pass on a quiet zone moves nothing, so the bid cannot run away between
// conversions however often the pass runs.
export const CPA_GAIN = 0.5;
export const CPA_MAX_STEP = 0.25;
/** Weight kept of the evidence before each step: about the last 1 / (1 - CPA_DECAY) steps count. */
export const CPA_DECAY = 0.85;
/** The lowest bid as a share of the campaign's: below it a zone is as good as excluded, and could never recover. */
export const CPA_MIN_BID_SHARE = 0.05;

/** The optimised zone's next bid, from its current one and its eCPA against the target; never above `maxBid`. */
export function nextZoneBid(o: {
  bidMicroCents: number;
  ecpaNano: number;
  targetCpaNano: number;
  maxBid: number;
}): number {
  const raw = Math.pow(o.targetCpaNano / o.ecpaNano, CPA_GAIN);
  const factor = Math.min(1 + CPA_MAX_STEP, Math.max(1 / (1 + CPA_MAX_STEP), raw));
  const floor = Math.max(1, Math.ceil(o.maxBid * CPA_MIN_BID_SHARE));
  return Math.min(o.maxBid, Math.max(floor, Math.round(o.bidMicroCents * factor)));
}

const usd = (nano: number): string => `$${(nano / 1e9).toFixed(2)}`;

/**
 * One zone's state: `testing` until it spent its test budget or converted; `excluded` when it spent the test budget
 * without a conversion; `optimised` when it converts and the campaign has CPA_MIN_CONVERSIONS in all (before
 * that, a converting zone keeps testing at the campaign's bid).
 */
export function decideZone(o: {
  counts: ZoneCounts;
  prev: ZoneMemory | undefined;
  goal: CpaGoal;
  campaignConversions: number;
}): ZoneDecision {
  const { counts, prev, goal } = o;
  const max = goal.maxBidMicroCents;
  if (counts.conversions === 0) {
    if (counts.spendNano >= goal.testBudgetNano || prev?.state === 'excluded')
      return {
        state: 'excluded',
        bidMicroCents: 0,
        ...unstepped(counts),
        reason: `spent ${usd(counts.spendNano)} of its ${usd(goal.testBudgetNano)} test budget without a conversion`,
      };
    return {
      state: 'testing',
      bidMicroCents: max,
      ...unstepped(counts),
      reason: `testing: ${usd(counts.spendNano)} of its ${usd(goal.testBudgetNano)} test budget spent`,
    };
  }
  if (o.campaignConversions < CPA_MIN_CONVERSIONS)
    return {
      state: 'testing',
      bidMicroCents: max,
      ...unstepped(counts),
      reason: `converting; bids are optimised once the campaign has ${CPA_MIN_CONVERSIONS} conversions (${o.campaignConversions} so far)`,
    };
  const was = prev?.state === 'optimised' ? prev : undefined;
  const current = Math.min(max, was?.bidMicroCents ?? max);
  if (was && counts.spendNano - was.steppedAtSpendNano < goal.targetCpaNano)
    return {
      ...was,
      state: 'optimised',
      bidMicroCents: current,
      reason: `recent eCPA ${usd(recentEcpa(was))} against a target of ${usd(goal.targetCpaNano)}; waiting for more spend before the next step`,
    };
  // The first step weighs everything so far; later ones decay what came before the last step.
  const recentSpendNano = was
    ? was.recentSpendNano * CPA_DECAY + counts.spendNano - was.steppedAtSpendNano
    : counts.spendNano;
  const recentConversions = was
    ? was.recentConversions * CPA_DECAY + counts.conversions - was.steppedAtConversions
    : counts.conversions;
  const memory = { recentSpendNano, recentConversions };
  const ecpaNano = recentEcpa(memory);
  const bid = nextZoneBid({ bidMicroCents: current, ecpaNano, targetCpaNano: goal.targetCpaNano, maxBid: max });
  const direction = bid < current ? 'lowered' : bid > current ? 'raised' : 'kept';
  return {
    state: 'optimised',
    bidMicroCents: bid,
    steppedAtSpendNano: counts.spendNano,
    steppedAtConversions: counts.conversions,
    ...memory,
    reason: `recent eCPA ${usd(ecpaNano)} against a target of ${usd(goal.targetCpaNano)}: bid ${direction}`,
  };
}

/** Spend over conversions of the recent evidence; with no recent conversion, the spend as if one were just coming. */
const recentEcpa = (m: { recentSpendNano: number; recentConversions: number }): number =>
  m.recentSpendNano / Math.max(m.recentConversions, 1);

const unstepped = (counts: ZoneCounts) => ({
  steppedAtSpendNano: counts.spendNano,
  steppedAtConversions: counts.conversions,
  recentSpendNano: counts.spendNano,
  recentConversions: counts.conversions,
});

/** A stored decision as the controller's memory of the zone. */
export const memoryOf = (e: ZoneBidEntry): ZoneMemory => ({
  state: e.state,
  bidMicroCents: e.bid_micro_cents,
  steppedAtSpendNano: e.stepped_at_spend_nano ?? 0,
  steppedAtConversions: e.stepped_at_conversions ?? 0,
  recentSpendNano: e.recent_spend_nano ?? 0,
  recentConversions: e.recent_conversions ?? 0,
});

/**
 * Every zone's decision for one campaign: the zones with counts, and the ones decided before (an excluded zone
 * stays excluded). Returns the entries to store: excluded and optimised zones (testing ones are the default).
 */
export function decideCampaign(o: {
  goal: CpaGoal;
  counts: ReadonlyMap<number, ZoneCounts>;
  prev: readonly ZoneBidEntry[];
  /** A zone's subid by id; a zone we no longer know is left out (nothing can serve on it). */
  subidOf: (zoneId: number) => string | undefined;
}): { entries: ZoneBidEntry[]; decisions: Map<number, ZoneDecision>; conversions: number } {
  let conversions = 0;
  for (const c of o.counts.values()) conversions += c.conversions;
  const prev = new Map(o.prev.map((e) => [e.zone_id, e]));
  const zoneIds = [...new Set([...o.counts.keys(), ...prev.keys()])].sort((a, b) => a - b);
  const entries: ZoneBidEntry[] = [];
  const decisions = new Map<number, ZoneDecision>();
  for (const zoneId of zoneIds) {
    const before = prev.get(zoneId);
    const d = decideZone({
      counts: o.counts.get(zoneId) ?? { spendNano: 0, conversions: 0 },
      prev: before && memoryOf(before),
      goal: o.goal,
      campaignConversions: conversions,
    });
    decisions.set(zoneId, d);
    const subid = before?.subid ?? o.subidOf(zoneId);
    if (d.state === 'testing' || subid === undefined) continue;
    entries.push({
      zone_id: zoneId,
      subid,
      state: d.state,
      bid_micro_cents: d.bidMicroCents,
      stepped_at_spend_nano: d.steppedAtSpendNano,
      stepped_at_conversions: d.steppedAtConversions,
      recent_spend_nano: d.recentSpendNano,
      recent_conversions: d.recentConversions,
      reason: d.reason,
    });
  }
  return { entries, decisions, conversions };
}

/** Same zones, states and bids: a pass that changed nothing the engines apply writes nothing. */
export function sameZoneBids(a: readonly ZoneBidEntry[], b: readonly ZoneBidEntry[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i] as ZoneBidEntry;
    const y = b[i] as ZoneBidEntry;
    if (x.zone_id !== y.zone_id || x.state !== y.state || x.bid_micro_cents !== y.bid_micro_cents) return false;
    if (x.stepped_at_spend_nano !== y.stepped_at_spend_nano) return false;
  }
  return true;
}

/**
 * A campaign's target and test budget after a create or an update (`current`: the stored ones; none on create):
 * a target left out keeps the current one, null removes it with its test budget; a test budget left out is twice a
 * new target, or the current one. A test budget needs a target.
 */
export function targetCpaFields(
  input: { target_cpa_usd?: number | null | undefined; cpa_test_budget_usd?: number | undefined },
  current: { target_cpa_cents: number | null; cpa_test_budget_cents: number | null },
):
  | { ok: true; target_cpa_cents: number | null; cpa_test_budget_cents: number | null }
  | { ok: false; fields: Record<string, string> } {
  const target =
    input.target_cpa_usd === undefined
      ? current.target_cpa_cents
      : input.target_cpa_usd === null
        ? null
        : cents(input.target_cpa_usd);
  if (target === null) {
    if (input.cpa_test_budget_usd !== undefined)
      return { ok: false, fields: { cpa_test_budget_usd: 'needs a target_cpa_usd' } };
    return { ok: true, target_cpa_cents: null, cpa_test_budget_cents: null };
  }
  const budget =
    input.cpa_test_budget_usd !== undefined
      ? cents(input.cpa_test_budget_usd)
      : input.target_cpa_usd !== undefined || current.cpa_test_budget_cents === null
        ? 2 * target
        : current.cpa_test_budget_cents;
  return { ok: true, target_cpa_cents: target, cpa_test_budget_cents: budget };
}
