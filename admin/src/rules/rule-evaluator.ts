import { randomUUID } from 'node:crypto';
import { Periodic } from '@adnet/runtime/periodic';
import type { StoredCampaign } from '@adnet/schemas/api';
import type { AdminConfig } from '@adnet/schemas/config';
import type { Notice } from '@adnet/schemas/accounts';
import type { Rule, RuleScope, RuleWindow } from '@adnet/schemas/rules';
import type { StatsDimension } from '@adnet/schemas/stats';
import { STATS_DIMENSION_COLUMNS } from '@adnet/schemas/stats';
import type { ClickHouseClient } from '../clickhouse/open.ts';
import type { Logger } from '../log.ts';
import type { Notifier } from '../mail/notifier.ts';
import type { ConfigStore } from '../storage/config-store.ts';
import type { RuleStore, StoredLogEntry } from '../storage/rule-store.ts';
import { buildStatsQuery } from '../stats/stats-query.ts';
import { evaluateRule, windowRange } from './evaluate-rule.ts';
import type { TargetCounts } from './rule-metrics.ts';
import { applyRuleAction } from './rule-actions.ts';

/** What the evaluator uses: the statistics, the campaign and rule stores, and the mail queue. */
export interface RulePorts {
  config: Pick<AdminConfig, 'stats' | 'rules'>;
  log: Logger;
  clickhouse: ClickHouseClient | undefined;
  configStore: ConfigStore;
  rules: RuleStore;
  notifier: Notifier;
}

/** The statistics dimension each scope groups by. */
const SCOPE_DIMENSION: Readonly<Record<RuleScope, StatsDimension>> = {
  zone: 'zone',
  site: 'site',
  source: 'source',
  creative: 'creative',
  country: 'geo',
  os: 'os',
  browser: 'browser',
};

/** The name a window instance has in the acted marks: the window and its first day. */
export const windowKey = (window: RuleWindow, from: string): string => `${window}:${from}`;

/**
 * Each target's sums over the window for one campaign, from the hourly statistics (the same query the
 * statistics API runs, grouped by the scope's dimension, in UTC). Traffic no target of the scope can name
 * (no zone of ours, an unknown country or family) is left out: there is nothing to act on.
 */
export async function targetCounts(
  ports: Pick<RulePorts, 'clickhouse' | 'config'>,
  campaign: Pick<StoredCampaign, 'id' | 'advertiser_id'>,
  scope: RuleScope,
  range: { from: string; to: string },
): Promise<TargetCounts[]> {
  const ch = ports.clickhouse;
  if (!ch) throw new Error('automated rules need the event store');
  const dimension = SCOPE_DIMENSION[scope];
  const { sql, params } = buildStatsQuery(
    ports.config.stats.database,
    { ...range, group_by: [dimension], tz: 'UTC', format: 'json', campaign_id: campaign.id },
    { advertiserId: campaign.advertiser_id },
  );
  const raw = await (
    await ch.query({ query: sql, query_params: params, format: 'JSONEachRow' })
  ).json<Record<string, string | number>>();
  const column = `k_${STATS_DIMENSION_COLUMNS[dimension]}`;
  return raw
    .map((r) => ({
      target: String(r[column] ?? ''),
      impressions: Number(r.impressions),
      clicks: Number(r.clicks),
      conversions: Number(r.conversions),
      spentNano: Number(r.spent_nano),
      revenueCents: Number(r.revenue_cents ?? 0),
    }))
    .filter((t) => t.target !== '' && t.target !== '0');
}

/** What a rule would do now, without doing it: the decision on the window's statistics and the marks. */
export async function previewRule(ports: RulePorts, campaign: StoredCampaign, rule: Rule, nowMs = Date.now()) {
  const range = windowRange(rule.window, nowMs);
  const [targets, acted] = await Promise.all([
    targetCounts(ports, campaign, rule.scope, range),
    ports.rules.acted(campaign.id, rule.id, windowKey(rule.window, range.from)),
  ]);
  const { hits, alreadyActed } = evaluateRule(rule, targets, acted);
  return { rule_id: rule.id, window: rule.window, ...range, actions: hits, already_acted: alreadyActed };
}

/**
 * One campaign's rules, evaluated and acted on by the one process that holds its lease. Each action is
 * claimed (rule, target, window instance) before it is made, so even past a lapsed lease a target is acted
 * on once per window; an action that fails gives its claim back for the next pass.
 */
export async function evaluateCampaign(
  ports: RulePorts,
  campaignId: number,
  nowMs = Date.now(),
): Promise<StoredLogEntry[]> {
  const token = randomUUID();
  if (!(await ports.rules.lease(campaignId, token, ports.config.rules.leaseMs))) return [];
  try {
    const rules = (await ports.rules.list(campaignId)).filter((r) => r.enabled);
    if (rules.length === 0) {
      await ports.rules.forget(campaignId);
      return [];
    }
    const logged: StoredLogEntry[] = [];
    // Rules of one scope and window read the same rows: one query each.
    const counts = new Map<string, Promise<TargetCounts[]>>();
    for (const rule of rules) {
      // Read afresh for each rule: an earlier rule may have paused the campaign or changed its bids.
      const campaign = (await ports.configStore.read<StoredCampaign>('campaign', campaignId))?.value;
      if (!campaign || campaign.status === 'archived') break;
      const range = windowRange(rule.window, nowMs);
      const instance = windowKey(rule.window, range.from);
      const key = `${rule.scope}|${range.from}|${range.to}`;
      let rows = counts.get(key);
      if (!rows) counts.set(key, (rows = targetCounts(ports, campaign, rule.scope, range)));
      const { hits } = evaluateRule(rule, await rows, await ports.rules.acted(campaignId, rule.id, instance));
      for (const hit of hits) {
        if (!(await ports.rules.claim(campaignId, rule.id, instance, hit.target))) continue;
        try {
          const result = await applyRuleAction(ports, campaign, rule, hit);
          logged.push(
            await ports.rules.appendLog({
              ...hit,
              campaign_id: campaignId,
              rule_id: rule.id,
              rule_name: rule.name,
              scope: rule.scope,
              window: rule.window,
              window_start: range.from,
              at: new Date(nowMs).toISOString(),
              ...result,
            }),
          );
        } catch (err) {
          await ports.rules.unclaim(campaignId, rule.id, instance, hit.target);
          ports.log.error(
            { event: 'rules.action_failed', campaignId, ruleId: rule.id, target: hit.target, err },
            'rule action failed; the next pass tries again',
          );
        }
      }
    }
    return logged;
  } finally {
    await ports.rules.release(campaignId, token);
  }
}

const DIGEST_MAX = 200;

/** Every campaign with rules, then one email digest per advertiser of what their rules did in this pass. */
export async function runRulePass(
  ports: RulePorts,
  nowMs = Date.now(),
): Promise<{ campaigns: number; actions: number }> {
  const campaigns = await ports.rules.campaigns();
  const byAdvertiser = new Map<number, StoredLogEntry[]>();
  let actions = 0;
  for (const id of campaigns) {
    const logged = await evaluateCampaign(ports, id, nowMs);
    if (logged.length === 0) continue;
    actions += logged.length;
    const campaign = await ports.configStore.read<StoredCampaign>('campaign', id);
    if (!campaign) continue;
    const list = byAdvertiser.get(campaign.value.advertiser_id) ?? [];
    byAdvertiser.set(campaign.value.advertiser_id, [...list, ...logged]);
  }
  for (const [userId, entries] of byAdvertiser) {
    const notice: Notice = {
      kind: 'rule_actions',
      user_id: userId,
      actions: entries.slice(0, DIGEST_MAX).map((e) => ({
        campaign_id: e.campaign_id,
        rule_name: e.rule_name,
        action: e.action,
        target: e.target,
        outcome: e.outcome,
        detail: e.detail,
      })),
      more: Math.max(0, entries.length - DIGEST_MAX),
    };
    await ports.notifier.notify(notice);
  }
  if (actions > 0) ports.log.info({ event: 'rules.pass', campaigns: campaigns.length, actions }, 'rules acted');
  return { campaigns: campaigns.length, actions };
}

/** The evaluator on its clock: every RULES_INTERVAL_MS, in any number of admin processes. */
export function ruleEvaluator(ports: RulePorts): Periodic {
  return new Periodic({
    intervalMs: ports.config.rules.intervalMs,
    pass: () => runRulePass(ports),
    onError: (err) => ports.log.error({ event: 'rules.pass_failed', err }, 'rule evaluation failed'),
  });
}
