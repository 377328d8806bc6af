import type { TestApp, Account } from '@adnet/test-support/admin';
import { call, validCampaign } from '@adnet/test-support/admin';

// The rules API as its tests call it, for one advertiser (read when called, so a beforeAll may set it).

export type RuleBody = Record<string, unknown> & { id: number; errors?: Record<string, string> };
export interface RuleLogEntry {
  id: number;
  rule_id: number;
  target: string;
  action: string;
  outcome: string;
  detail: string;
  values: Record<string, number | null>;
  undone_at: string | null;
}

/** A rule most tests start from: a zone that spent $5 today without converting is excluded. */
export const burner = {
  name: 'No conversions after $5',
  scope: 'zone',
  window: 'today',
  conditions: [
    { metric: 'spend_usd', op: '>', value: 5 },
    { metric: 'conversions', op: '<', value: 1 },
  ],
  action: 'exclude',
};

export function ruleCalls(app: () => TestApp, owner: () => Account) {
  const rules = (c: number, json: unknown, who = owner()) =>
    call<RuleBody>(app(), 'POST', `/api/adv/campaigns/${c}/rules`, { token: who.token, json });
  const listRules = (c: number, who = owner()) =>
    call<{ rules: RuleBody[] }>(app(), 'GET', `/api/adv/campaigns/${c}/rules`, { token: who.token });
  const ruleAt = (c: number, r: number, method = 'GET', json?: unknown) =>
    call<RuleBody>(app(), method, `/api/adv/campaigns/${c}/rules/${r}`, { token: owner().token, json });
  const preview = (c: number, r: number) =>
    call<{
      actions: { target: string; action: string; values: Record<string, number | null> }[];
      already_acted: string[];
    }>(app(), 'POST', `/api/adv/campaigns/${c}/rules/${r}/preview`, { token: owner().token });
  const ruleLog = async (c: number) =>
    (
      await call<{ entries: RuleLogEntry[] }>(app(), 'GET', `/api/adv/campaigns/${c}/rule-log`, {
        token: owner().token,
      })
    ).body.entries;
  const undo = (c: number, e: number) =>
    call<RuleBody>(app(), 'POST', `/api/adv/campaigns/${c}/rule-log/${e}/undo`, { token: owner().token });
  const campaign = async (c: number) =>
    (
      await call<{
        status: string;
        sources: { mode: string; zones: string[]; sites: number[] };
        bid_adjustments: { zone?: string; site?: number; country?: string; multiplier: number }[];
        geo_include: string[];
      }>(app(), 'GET', `/api/adv/campaigns/${c}`, { token: owner().token })
    ).body;
  const newCampaign = async () =>
    (await call<RuleBody>(app(), 'POST', '/api/adv/campaigns', { token: owner().token, json: validCampaign })).body.id;
  return { rules, listRules, ruleAt, preview, ruleLog, undo, campaign, newCampaign };
}
