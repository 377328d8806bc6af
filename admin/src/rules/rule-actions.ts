import { BROWSER_FAMILIES, OS_FAMILIES } from '@adnet/schemas/api';
import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { StoredZone } from '@adnet/schemas/publisher';
import type { Rule, RuleHit, RuleScope } from '@adnet/schemas/rules';
import { MAX_BID_ADJUSTMENTS, adjustmentKey } from '@adnet/schemas/source-lists';
import type { BidAdjustment, SourceList } from '@adnet/schemas/source-lists';
import { transition } from '../domain/campaign-states.ts';
import { creativeMove } from '../domain/creative-states.ts';
import type { CreativeAction } from '../domain/creative-states.ts';
import { addSources, removeSources } from '../domain/source-edits.ts';
import { AppError, notFound } from '../errors.ts';
import { changeSources } from '../repos/campaign-sources.ts';
import { campaignApprovedIndex } from '../repos/campaigns.ts';
import type { ConfigStore, IndexOp } from '../storage/config-store.ts';
import type { RuleUndo } from '../storage/rule-store.ts';
import { movedMultiplier, narrowedList } from './rule-changes.ts';

/** What acting on a campaign needs: every write goes through the config store, so engines see it. */
export interface RuleActionPorts {
  configStore: ConfigStore;
}

export interface ActionResult {
  outcome: 'applied' | 'skipped';
  detail: string;
  undo: RuleUndo;
}

type TargetingField = 'geo_include' | 'os_include' | 'browser_include';

const skipped = (detail: string): ActionResult => ({ outcome: 'skipped', detail, undo: { kind: 'none' } });

/** A zone or site the source list names: a zone by its subid (looked up), a site by its id. */
async function sourceEntry(
  ports: RuleActionPorts,
  scope: RuleScope,
  target: string,
): Promise<{ zones: string[]; sites: number[]; label: string } | undefined> {
  const id = Number(target);
  if (!Number.isInteger(id) || id <= 0) return undefined;
  if (scope === 'site') return { zones: [], sites: [id], label: `site ${id}` };
  const zone = await ports.configStore.read<StoredZone>('zone', id);
  return zone ? { zones: [zone.value.subid], sites: [], label: `zone ${zone.value.subid}` } : undefined;
}

/** The bid adjustment key a target has: zones by subid, sites by id, countries by code. */
async function adjustmentFor(
  ports: RuleActionPorts,
  scope: RuleScope,
  target: string,
): Promise<Omit<BidAdjustment, 'multiplier'> | undefined> {
  if (scope === 'country') return target ? { country: target } : undefined;
  const entry = await sourceEntry(ports, scope, target);
  if (!entry) return undefined;
  return entry.zones[0] !== undefined ? { zone: entry.zones[0] } : { site: entry.sites[0] as number };
}

const sameKey = (a: Omit<BidAdjustment, 'multiplier'>) => (b: BidAdjustment) =>
  adjustmentKey(b) === adjustmentKey({ ...a, multiplier: 1 });

/**
 * One read-modify-write of the campaign through the config store (retried on a concurrent write); `change`
 * returns undefined to write nothing. Asked first of the campaign as read, so a change that is not needed
 * writes no revision engines would reload for.
 */
async function changeCampaign(
  ports: RuleActionPorts,
  id: number,
  change: (c: StoredCampaign) => StoredCampaign | undefined,
): Promise<void> {
  const read = await ports.configStore.read<StoredCampaign>('campaign', id);
  if (!read) throw notFound('Campaign');
  if (!change(read.value)) return;
  await ports.configStore.update<StoredCampaign>(
    'campaign',
    id,
    (c) => {
      const next = change(c);
      return { value: next ? { ...next, updated_at: new Date().toISOString() } : c };
    },
    () => notFound('Campaign'),
  );
}

async function exclude(ports: RuleActionPorts, campaign: StoredCampaign, rule: Rule, target: string) {
  if (rule.scope === 'zone' || rule.scope === 'site') {
    const entry = await sourceEntry(ports, rule.scope, target);
    if (!entry) return skipped(`no ${rule.scope} ${target} of ours to exclude`);
    let op: 'add' | 'remove' | undefined;
    await changeSources(ports, campaign.id, (list: SourceList) => {
      op = undefined;
      // An include list excludes by leaving the entry out.
      if (list.mode === 'include') {
        const next = removeSources(list, entry);
        if (next.zones.length === list.zones.length && next.sites.length === list.sites.length) return undefined;
        op = 'remove';
        return next;
      }
      const added = addSources(list, entry);
      if (!added.ok || added.list.zones.length + added.list.sites.length === list.zones.length + list.sites.length)
        return undefined;
      op = 'add';
      return added.list;
    });
    if (!op) return skipped(`${entry.label} was excluded already, or the source list is full`);
    return {
      outcome: 'applied' as const,
      detail: `${entry.label} excluded`,
      undo: { kind: 'sources' as const, op, zones: entry.zones, sites: entry.sites },
    };
  }
  const field: TargetingField =
    rule.scope === 'country' ? 'geo_include' : rule.scope === 'os' ? 'os_include' : 'browser_include';
  const all: readonly string[] = rule.scope === 'os' ? OS_FAMILIES : rule.scope === 'browser' ? BROWSER_FAMILIES : [];
  let before: string[] = [];
  let after: string[] | undefined;
  await changeCampaign(ports, campaign.id, (c) => {
    before = [...((c[field] as string[] | undefined) ?? [])];
    after = narrowedList(before, all, target);
    return after ? { ...c, [field]: after } : undefined;
  });
  if (!after)
    return skipped(
      rule.scope === 'country' && before.length === 0
        ? 'the campaign targets every country: a rule can take a country out of a list of countries only'
        : `${target} is not targeted, or it is the last ${rule.scope} the campaign targets`,
    );
  return {
    outcome: 'applied' as const,
    detail: `${rule.scope} ${target} taken out of ${field}`,
    undo: { kind: 'targeting' as const, field, value: target, before, after },
  };
}

async function moveBid(ports: RuleActionPorts, campaign: StoredCampaign, rule: Rule, hit: RuleHit) {
  const key = await adjustmentFor(ports, rule.scope, hit.target);
  if (!key) return skipped(`no ${rule.scope} ${hit.target} of ours to adjust`);
  let before: number | null = null;
  let after = 1;
  let full = false;
  await changeCampaign(ports, campaign.id, (c) => {
    const list = c.bid_adjustments ?? [];
    const found = list.find(sameKey(key));
    before = found ? found.multiplier : null;
    after = movedMultiplier(before ?? 1, rule.action === 'raise_bid' ? 'raise' : 'lower', hit.amount_pct ?? 0);
    full = !found && list.length >= MAX_BID_ADJUSTMENTS;
    if (after === (before ?? 1) || full) return undefined;
    const next = found
      ? list.map((a) => (a === found ? { ...a, multiplier: after } : a))
      : [...list, { ...key, multiplier: after }];
    return { ...c, bid_adjustments: next };
  });
  const label = adjustmentKey({ ...key, multiplier: after });
  if (full) return skipped(`the campaign has ${MAX_BID_ADJUSTMENTS} bid adjustments already`);
  if (after === (before ?? 1)) return skipped(`${label}: the multiplier is at its limit (${after})`);
  return {
    outcome: 'applied' as const,
    detail: `${label}: multiplier ${before ?? 1} -> ${after}`,
    undo: { kind: 'bid_adjustment' as const, key, before, after },
  };
}

/** Pause or resume one of the campaign's creatives, as the advertiser's own move does (creatives router). */
async function moveCreative(ports: RuleActionPorts, campaignId: number, creativeId: number, action: CreativeAction) {
  let outcome: { changed: boolean; reason?: string } = { changed: false };
  await ports.configStore.update<Creative>(
    'creative',
    creativeId,
    (c) => {
      if (c.campaign_id !== campaignId) {
        outcome = { changed: false, reason: `creative ${creativeId} is not this campaign's` };
        return { value: c };
      }
      const m = creativeMove(c.status, action);
      outcome = m.ok ? { changed: m.changed } : { changed: false, reason: m.reason };
      if (!m.ok || !m.changed) return { value: c };
      const ops: IndexOp[] = [
        { cmd: m.next === 'approved' ? 'SADD' : 'SREM', key: campaignApprovedIndex(campaignId), member: creativeId },
      ];
      return { value: { ...c, status: m.next }, ops };
    },
    () => notFound('Creative'),
  );
  return outcome;
}

/** Pause or reactivate the campaign through its state machine (campaigns router). */
async function moveCampaign(ports: RuleActionPorts, campaignId: number, action: 'pause' | 'activate') {
  let outcome: { changed: boolean; reason?: string } = { changed: false };
  const usableCreatives = await ports.configStore.countIndexed(campaignApprovedIndex(campaignId));
  await changeCampaign(ports, campaignId, (c) => {
    const t = transition(c.status, action, { usableCreatives, dailyBudgetCents: c.daily_budget_cents });
    outcome = t.ok ? { changed: t.changed } : { changed: false, reason: t.reason };
    return t.ok && t.changed ? { ...c, status: t.next } : undefined;
  });
  return outcome;
}

/** Makes one action of a rule on its campaign: what it changed, in words, and what its undo must put back. */
export async function applyRuleAction(
  ports: RuleActionPorts,
  campaign: StoredCampaign,
  rule: Rule,
  hit: RuleHit,
): Promise<ActionResult> {
  switch (hit.action) {
    case 'exclude':
      return exclude(ports, campaign, rule, hit.target);
    case 'raise_bid':
    case 'lower_bid':
      return moveBid(ports, campaign, rule, hit);
    case 'pause_creative': {
      const id = Number(hit.target);
      const m = await moveCreative(ports, campaign.id, id, 'pause');
      if (!m.changed) return skipped(m.reason ?? `creative ${id} was paused already`);
      return { outcome: 'applied', detail: `creative ${id} paused`, undo: { kind: 'creative', creativeId: id } };
    }
    case 'pause_campaign': {
      const m = await moveCampaign(ports, campaign.id, 'pause');
      if (!m.changed) return skipped(m.reason ?? 'the campaign was paused already');
      return { outcome: 'applied', detail: 'campaign paused', undo: { kind: 'campaign' } };
    }
    case 'notify':
      return { outcome: 'applied', detail: 'the advertiser is told by email', undo: { kind: 'none' } };
  }
}

const changedSince = () =>
  new AppError('conflict', 'The setting this action changed has been changed since; change it by hand');

/**
 * Reverts exactly what one logged action changed: the entry taken back out of (or put back into) the
 * source list, the targeted value put back, the multiplier as it was, the creative or campaign running
 * again. A bid multiplier changed since is not overwritten (409).
 */
export async function undoRuleAction(ports: RuleActionPorts, campaignId: number, undo: RuleUndo): Promise<void> {
  switch (undo.kind) {
    case 'none':
      return;
    case 'sources': {
      const entries = { zones: undo.zones, sites: undo.sites };
      await changeSources(ports, campaignId, (list) => {
        if (undo.op === 'add') return removeSources(list, entries);
        const added = addSources(list, entries);
        return added.ok ? added.list : undefined;
      });
      return;
    }
    case 'targeting': {
      await changeCampaign(ports, campaignId, (c) => {
        const now = (c[undo.field] as string[] | undefined) ?? [];
        // Untouched since: exactly as it was (an empty list, every value, included).
        if (now.length === undo.after.length && now.every((v, i) => v === undo.after[i]))
          return { ...c, [undo.field]: undo.before };
        if (now.length === 0 || now.includes(undo.value)) return undefined;
        return { ...c, [undo.field]: [...now, undo.value] };
      });
      return;
    }
    case 'bid_adjustment': {
      let conflict = false;
      await changeCampaign(ports, campaignId, (c) => {
        const list = c.bid_adjustments ?? [];
        const found = list.find(sameKey(undo.key));
        conflict = found?.multiplier !== undo.after;
        if (conflict || !found) return undefined;
        const next =
          undo.before === null
            ? list.filter((a) => a !== found)
            : list.map((a) => (a === found ? { ...a, multiplier: undo.before as number } : a));
        return { ...c, bid_adjustments: next };
      });
      if (conflict) throw changedSince();
      return;
    }
    case 'creative': {
      const m = await moveCreative(ports, campaignId, undo.creativeId, 'resume');
      if (m.reason) throw new AppError('illegal_transition', m.reason);
      return;
    }
    case 'campaign': {
      const m = await moveCampaign(ports, campaignId, 'activate');
      if (m.reason) throw new AppError('illegal_transition', m.reason);
      return;
    }
  }
}
