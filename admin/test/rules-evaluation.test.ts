import type { ClickHouseClient } from '@clickhouse/client';
import type { Notice } from '@adnet/schemas/accounts';
import { beforeAll, describe, expect, it } from 'vitest';
import { runRulePass } from '../src/rules/rule-evaluator.ts';
import { createServices } from '../src/services.ts';
import { connectRedis } from '../src/storage/redis.ts';
import { RuleStore } from '../src/storage/rule-store.ts';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import { burner, ruleCalls } from './support/rule-calls.ts';
import type { RuleLogEntry as Entry } from './support/rule-calls.ts';
import type { Account } from '@adnet/test-support/admin';
import { World } from '@adnet/test-support/world';

// What automated rules do, through the real admin: the API (real HTTP), the statistics they read (chDB, rows as the
// ingester's view writes them), the writes they make (the config store engines mirror), the log, undo and
// the digest in the real mail queue; and two admin processes evaluating at once against one Redis.

const fx = useTestApp({}, { clickhouse: true });
const USD = 1_000_000_000;
let adv: Account;
let zones: { id: number; subid: string }[];
let world: World;
let siteId: number;

const { rules, preview, ruleLog, undo, campaign, newCampaign } = ruleCalls(
  () => fx.app,
  () => adv,
);

const ch = () => fx.app.svc.clickhouse as ClickHouseClient;
const today = new Date().toISOString().slice(0, 10);
/** Hourly statistics rows of one campaign, as the ingester's view writes them. */
async function traffic(
  campaignId: number,
  rows: {
    zone?: number;
    country?: string;
    creative?: number;
    clicks?: number;
    usd: number;
    conversions?: number;
    revenueCents?: number;
  }[],
) {
  await ch().insert({
    table: 'adnet.stats_hourly',
    format: 'JSONEachRow',
    values: rows.map((r) => ({
      hour: `${today} 00:00:00`,
      advertiser_id: adv.id,
      campaign_id: campaignId,
      creative_id: r.creative ?? 1,
      publisher_id: 1,
      site_id: siteId,
      zone_id: r.zone ?? 0,
      country: r.country ?? 'us',
      device: 'desktop',
      impressions: 1000,
      clicks: r.clicks ?? 20,
      conversions: r.conversions ?? 0,
      spent_nano: Math.round(r.usd * USD),
      revenue_cents: r.revenueCents ?? 0,
    })),
  });
}

/** The digests queued since the last look, taken off the queue. */
async function digests(): Promise<Extract<Notice, { kind: 'rule_actions' }>[]> {
  const jobs = await fx.app.svc.mailQueue.lease(Date.now() + 1000, 60_000, 1000);
  for (const j of jobs) await fx.app.svc.mailQueue.done(j.id);
  return jobs
    .map((j) => JSON.parse(j.raw) as Notice)
    .filter((n): n is Extract<Notice, { kind: 'rule_actions' }> => n.kind === 'rule_actions');
}

beforeAll(async () => {
  adv = await account(fx.app, 'advertiser');
  world = await World.create(fx.app);
  const site = await world.site();
  siteId = site.id;
  zones = [];
  for (let i = 0; i < 4; i++) zones.push(await world.zone({ format: 'native' }, site));
  await digests();
});

describe('once across admin processes', () => {
  it('gives a (rule, target, window) mark and a campaign lease to exactly one of many concurrent callers', async () => {
    const redis2 = connectRedis(fx.redis.url, 'second');
    const stores = [fx.app.svc.rules, new RuleStore(redis2)] as const;
    const either = (i: number) => (i % 2 === 0 ? stores[0] : stores[1]);
    try {
      const claims = await Promise.all(
        Array.from({ length: 40 }, (_, i) => either(i).claim(77_001, 5, 'today:2026-11-29', 'z9')),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      // Another target, window or rule is another mark.
      expect(await stores[1].claim(77_001, 5, 'today:2026-11-29', 'z8')).toBe(true);
      expect(await stores[0].claim(77_001, 5, 'today:2026-11-30', 'z9')).toBe(true);
      expect(await stores[0].claim(77_001, 6, 'today:2026-11-29', 'z9')).toBe(true);
      const leases = await Promise.all(
        Array.from({ length: 40 }, (_, i) => either(i).lease(77_001, `token-${i}`, 60_000)),
      );
      expect(leases.filter(Boolean)).toHaveLength(1);
      // Only its holder gives it back.
      const holder = leases.indexOf(true);
      await stores[0].release(77_001, 'not-the-holder');
      expect(await stores[1].lease(77_001, 'late', 60_000)).toBe(false);
      await either(holder).release(77_001, `token-${holder}`);
      expect(await stores[1].lease(77_001, 'late', 60_000)).toBe(true);
    } finally {
      await redis2.quit();
    }
  });
});

describe('evaluation', () => {
  it('previews without acting, then two admin processes evaluating at once act once per target and window', async () => {
    const c = await newCampaign();
    const [z1, z2, z3, z4] = zones as [(typeof zones)[0], (typeof zones)[0], (typeof zones)[0], (typeof zones)[0]];
    await traffic(c, [
      { zone: z1.id, usd: 6 },
      { zone: z2.id, usd: 9, conversions: 1, revenueCents: 300 },
      { zone: z3.id, usd: 4 },
      { zone: z4.id, usd: 7.5 },
      // Exchange traffic on no zone of ours: nothing to act on.
      { zone: 0, usd: 50 },
    ]);
    const exclude = (await rules(c, burner)).body.id;
    // Losing money where it converts: bid 20 % lower there.
    const lower = (
      await rules(c, {
        name: 'ROI below -50 %',
        scope: 'zone',
        window: 'last_2_days',
        conditions: [
          { metric: 'roi', op: '<', value: -0.5 },
          { metric: 'conversions', op: '>=', value: 1 },
        ],
        action: 'lower_bid',
        amount_pct: 20,
      })
    ).body.id;

    const seen = await preview(c, exclude);
    expect(seen.status).toBe(200);
    expect(seen.body.actions.map((a) => a.target)).toEqual([z1.id, z4.id].map(String));
    expect(seen.body.actions[0]?.values).toMatchObject({ spend_usd: 6, conversions: 0, ecpa_usd: null, roi: -1 });
    expect((await preview(c, lower)).body.actions.map((a) => [a.target, a.values.roi])).toEqual([
      [String(z2.id), -0.6667],
    ]);
    // A preview changes nothing.
    expect((await campaign(c)).sources.zones).toEqual([]);
    expect(await ruleLog(c)).toEqual([]);

    // A second admin process: its own services and Redis connection, the same stores.
    const redis2 = connectRedis(fx.redis.url, 'second');
    const svc2 = createServices(fx.app.svc.config, redis2, fx.app.svc.log, fx.app.svc.clickhouse);
    try {
      const passes = await Promise.all(Array.from({ length: 6 }, (_, i) => runRulePass(i % 2 ? svc2 : fx.app.svc)));
      // Later passes (a re-run, the next tick) find everything acted on.
      const again = await Promise.all([runRulePass(fx.app.svc), runRulePass(svc2)]);
      expect(passes.reduce((n, p) => n + p.actions, 0)).toBe(3);
      expect(again.map((p) => p.actions)).toEqual([0, 0]);
    } finally {
      await redis2.quit();
    }

    const log = await ruleLog(c);
    expect(log.map((e) => [e.rule_id, e.target, e.action, e.outcome]).sort()).toEqual(
      [
        [exclude, String(z1.id), 'exclude', 'applied'],
        [exclude, String(z4.id), 'exclude', 'applied'],
        [lower, String(z2.id), 'lower_bid', 'applied'],
      ].sort(),
    );
    expect(log.find((e) => e.action === 'lower_bid')?.values).toMatchObject({ spend_usd: 9, conversions: 1 });
    const after = await campaign(c);
    expect([after.sources.mode, after.sources.zones.sort(), after.sources.sites]).toEqual([
      'exclude',
      [z1.subid, z4.subid].sort(),
      [],
    ]);
    // Once: 0.8, not 0.64.
    expect(after.bid_adjustments).toEqual([{ zone: z2.subid, multiplier: 0.8 }]);
    const p = await preview(c, exclude);
    expect([p.body.actions, p.body.already_acted.sort()]).toEqual([[], [z1.id, z4.id].map(String).sort()]);

    // The digest: every action, mailed once whichever process made it.
    const mailed = (await digests()).filter((d) => d.user_id === adv.id).flatMap((d) => d.actions);
    expect(mailed.map((a) => a.target).sort()).toEqual([z1.id, z2.id, z4.id].map(String).sort());

    // Undo reverts exactly that action, once.
    const ex1 = log.find((e) => e.target === String(z1.id)) as Entry;
    const undone = await undo(c, ex1.id);
    expect(undone.status).toBe(200);
    expect(undone.body.undone_at).toEqual(expect.any(String));
    expect((await campaign(c)).sources.zones).toEqual([z4.subid]);
    expect((await undo(c, ex1.id)).status).toBe(409);
    const bid = log.find((e) => e.action === 'lower_bid') as Entry;
    expect((await undo(c, bid.id)).status).toBe(200);
    expect((await campaign(c)).bid_adjustments).toEqual([]);
    expect(
      (await ruleLog(c))
        .filter((e) => e.undone_at !== null)
        .map((e) => e.id)
        .sort(),
    ).toEqual([ex1.id, bid.id].sort());
    // Undone is not forgotten: the rule does not act on that target again in this window.
    expect((await runRulePass(fx.app.svc)).actions).toBe(0);
  });

  it('narrows the targeting and notifies; undo puts the country back', async () => {
    const c = await newCampaign();
    await traffic(c, [
      { country: 'us', usd: 3 },
      { country: 'de', usd: 12 },
    ]);
    const byCountry = {
      name: 'Countries that burn',
      scope: 'country',
      window: 'today',
      conditions: [{ metric: 'spend_usd', op: '>=', value: 10 }],
    };
    await rules(c, { ...byCountry, action: 'exclude' });
    await rules(c, { ...byCountry, action: 'notify', name: 'tell me' });
    expect((await runRulePass(fx.app.svc)).actions).toBe(2);
    expect((await campaign(c)).geo_include).toEqual(['us']);
    const log = await ruleLog(c);
    expect(log.map((e) => [e.action, e.target, e.outcome])).toEqual([
      ['notify', 'de', 'applied'],
      ['exclude', 'de', 'applied'],
    ]);
    const ex = log[1] as Entry;
    expect((await undo(c, ex.id)).status).toBe(200);
    expect((await campaign(c)).geo_include).toEqual(['us', 'de']);
    await digests();
  });

  it('pauses a creative and the campaign once, and undo runs them again', async () => {
    const { campaign: live, creativeId: weak } = await world.campaign(adv, { format: 'banner' });
    const c = live.id;
    const strong = await world.creative(adv, c, 'banner');
    await traffic(c, [
      { creative: weak, usd: 5, clicks: 1 },
      { creative: strong, usd: 5, clicks: 50 },
    ]);
    const scope = { scope: 'creative', window: 'today' };
    await rules(c, {
      ...scope,
      name: 'weak CTR',
      conditions: [{ metric: 'ctr', op: '<', value: 1 }],
      action: 'pause_creative',
    });
    await rules(c, {
      ...scope,
      name: 'spent enough',
      conditions: [{ metric: 'spend_usd', op: '>=', value: 5 }],
      action: 'pause_campaign',
    });
    expect((await runRulePass(fx.app.svc)).actions).toBe(2);
    const status = async (id: number) =>
      (await call<{ status: string }>(fx.app, 'GET', `/api/adv/creatives/${id}`, { token: adv.token })).body.status;
    expect([await status(weak), await status(strong), (await campaign(c)).status]).toEqual([
      'paused',
      'approved',
      'paused',
    ]);
    const log = await ruleLog(c);
    // One pause of the campaign, however many creatives spent enough: the first is named as its cause.
    expect(log.map((e) => [e.action, e.target])).toEqual([
      ['pause_campaign', String(Math.min(weak, strong))],
      ['pause_creative', String(weak)],
    ]);
    for (const e of log) expect((await undo(c, e.id)).status).toBe(200);
    expect([await status(weak), (await campaign(c)).status]).toEqual(['approved', 'active']);
    await digests();
  });
});
