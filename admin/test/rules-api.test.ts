import { beforeAll, describe, expect, it } from 'vitest';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { burner, ruleCalls } from './support/rule-calls.ts';

// The automated rules' API through the real admin over HTTP: its life cycle, who may call it, its bad input.
// What the rules do is rules-evaluation.test.ts.

const fx = useTestApp();
let adv: Account;
let other: Account;
const { rules, listRules, ruleAt, newCampaign } = ruleCalls(
  () => fx.app,
  () => adv,
);

beforeAll(async () => {
  adv = await account(fx.app, 'advertiser');
  other = await account(fx.app, 'advertiser');
});

describe('the rules API', () => {
  it('creates, lists, reads, changes and deletes rules, at most 10 a campaign', async () => {
    const c = await newCampaign();
    const created = await rules(c, burner);
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ ...burner, campaign_id: c, amount_pct: null, enabled: true });
    const id = created.body.id;
    expect((await ruleAt(c, id)).body).toEqual(created.body);
    const patched = await ruleAt(c, id, 'PATCH', { action: 'lower_bid', amount_pct: 30, enabled: false });
    expect(patched.status).toBe(200);
    expect(patched.body).toMatchObject({ action: 'lower_bid', amount_pct: 30, enabled: false, name: burner.name });
    for (let i = 1; i < 10; i++) expect((await rules(c, { ...burner, name: `r${i}` })).status).toBe(201);
    const eleventh = await rules(c, burner);
    expect([eleventh.status, eleventh.body.code]).toEqual([409, 'conflict']);
    expect((await listRules(c)).body.rules).toHaveLength(10);
    expect((await ruleAt(c, id, 'DELETE')).body).toEqual({ ok: true });
    expect((await ruleAt(c, id)).status).toBe(404);
    expect((await ruleAt(c, id, 'DELETE')).status).toBe(404);
    expect((await rules(c, burner)).status).toBe(201);
  });

  it("answers 403 for another advertiser's campaign and 404 for none", async () => {
    const c = await newCampaign();
    const r = (await rules(c, burner)).body.id;
    expect((await rules(c, burner, other)).status).toBe(403);
    expect((await listRules(c, other)).status).toBe(403);
    expect((await call(fx.app, 'GET', `/api/adv/campaigns/${c}/rules/${r}`, { token: other.token })).status).toBe(403);
    expect((await call(fx.app, 'GET', `/api/adv/campaigns/${c}/rule-log`, { token: other.token })).status).toBe(403);
    expect((await rules(999_999, burner)).status).toBe(404);
  });

  it('refuses bad input with a 400 naming each field', async () => {
    const c = await newCampaign();
    const bad = await rules(c, {
      name: '',
      scope: 'planet',
      window: 'forever',
      conditions: [{ metric: 'mood', op: '==', value: 'x' }],
      action: 'explode',
      amount_pct: 0,
      enabled: 'yes',
    });
    expect(bad.status).toBe(400);
    expect(Object.keys(bad.body.errors ?? {}).sort()).toEqual(
      [
        'action',
        'amount_pct',
        'conditions.0.metric',
        'conditions.0.op',
        'conditions.0.value',
        'enabled',
        'name',
        'scope',
        'window',
      ].sort(),
    );
    expect(bad.body.errors?.scope).toContain('zone, site, source, creative, country, os, browser');
    const four = await rules(c, { ...burner, conditions: Array(4).fill(burner.conditions[0]) });
    expect(four.body.errors).toEqual({ conditions: 'must have at most 3 conditions' });
    const none = await rules(c, { ...burner, conditions: [] });
    expect(none.body.errors).toEqual({ conditions: 'must have at least 1 condition' });
    for (const pct of [0, 101, 2.5]) {
      const r = await rules(c, { ...burner, action: 'raise_bid', amount_pct: pct });
      expect([r.status, Object.keys(r.body.errors ?? {})]).toEqual([400, ['amount_pct']]);
    }
    const missing = await rules(c, { ...burner, action: 'raise_bid' });
    expect(missing.body.errors).toEqual({ amount_pct: 'is required for raise_bid (1-100)' });
    const extra = await rules(c, { ...burner, amount_pct: 10 });
    expect(extra.body.errors).toEqual({ amount_pct: 'is only for raise_bid and lower_bid' });
    const wrongScope = await rules(c, { ...burner, action: 'pause_creative' });
    expect(Object.keys(wrongScope.body.errors ?? {})).toEqual(['action']);
    // A change is checked on the rule as it would be.
    const id = (await rules(c, burner)).body.id;
    const patch = await ruleAt(c, id, 'PATCH', { action: 'raise_bid' });
    expect([patch.status, patch.body.errors]).toEqual([400, { amount_pct: 'is required for raise_bid (1-100)' }]);
    expect((await ruleAt(c, id)).body.action).toBe('exclude');
    expect((await call(fx.app, 'GET', `/api/adv/campaigns/${c}/rules/abc`, { token: adv.token })).status).toBe(400);
  });
});
