import type { BidResponse } from '@adnet/schemas/openrtb';
import { balanceKey, campaignPoolKey, campaignTotalKey, ledgerKey } from '@adnet/schemas/redis-keys';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import { defineBudgetScripts } from '@adnet/engine/budget-scripts';
import { drainBudget } from '@adnet/test-support/budget-drain';
import { eventually, postBid, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World, bannerRequest } from '@adnet/test-support/world';
import { decodeTicket, encodeTicket } from '@adnet/engine/signed-token';
import type { BidTicket } from '@adnet/engine/signed-token';

const fx = useTestApp();
let world: World;
let engines: TestEngine[];
const SLICE_CENTS = 10;

beforeAll(async () => {
  world = await World.create(fx.app);
  await world.partner();
  engines = await Promise.all([0, 1].map(() => startEngine(fx.redis.url, { BUDGET_SLICE_CENTS: String(SLICE_CENTS) })));
});
afterAll(async () => {
  await Promise.all(engines.map((e) => e.stop()));
});

describe('budgets across two engines', () => {
  it('a daily budget holds within the stated bound, spend counted exactly once', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['au'], daily_budget_usd: 1, bid_usd: 6 });
    await Promise.all(
      engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active')),
    );
    const { wins, nobidsAfter } = await drainBudget(engines, 'AUS');
    expect(nobidsAfter).toBe(40);
    const day = new Date().toISOString().slice(0, 10);
    const spentNano = Number(await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, day), 'spent'));
    // Exactly what the counted wins cost: 0.5 cents each.
    expect(spentNano).toBe(wins * 5_000_000);
    // Budget $1 = 200 impressions. With win notices arriving promptly there is no overspend at all
    // (spend + holds never pass the limit); at most the engines' unspent slices stay unused.
    expect(wins).toBeGreaterThanOrEqual(200 - (2 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(200);
    const api = await call<{ daily_spent_cents: number; delivery: unknown }>(
      fx.app,
      'GET',
      `/api/adv/campaigns/${campaign.id}`,
      { token: adv.token },
    );
    expect(api.body.daily_spent_cents).toBe(Math.floor(wins * 0.5));
    // As the engines have it: no more bids, so the day's budget is spent.
    expect(api.body.delivery).toEqual({ serving: false, reasons: ['daily_budget_spent'] });
    const bal = await call<{ balance_cents: number }>(fx.app, 'GET', '/api/adv/balance', { token: adv.token });
    expect(bal.body.balance_cents).toBe(1_000_000 - Math.floor(wins * 0.5));
  });

  it('an advertiser out of balance stops bidding on every engine', async () => {
    const adv = await world.advertiser(30);
    const { campaign } = await world.campaign(adv, { geo_include: ['nz'], daily_budget_usd: 100, bid_usd: 6 });
    await Promise.all(
      engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active')),
    );
    const { wins } = await drainBudget(engines, 'NZL');
    // 30 cents of balance = 60 impressions at 0.5 cents.
    expect(wins).toBeGreaterThanOrEqual(60 - (2 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(60);
    const bal = await call<{ balance_cents: number; ledger: { amount_cents: number }[] }>(
      fx.app,
      'GET',
      '/api/adv/balance',
      { token: adv.token },
    );
    expect(bal.body.balance_cents).toBe(30 - Math.floor(wins * 0.5));
    expect(bal.body.ledger.reduce((s, e) => s + e.amount_cents, 0)).toBe(bal.body.balance_cents);
  });
});

describe('a lifetime budget', () => {
  it('caps spend over all days on top of the daily budget, on every engine, and the campaign says so', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, {
      geo_include: ['jp'],
      daily_budget_usd: 100,
      total_budget_usd: 1.5,
      bid_usd: 6,
    });
    // 70 cents spent on earlier days: 80 cents are left of the $1.50.
    await fx.app.svc.redis.hset(campaignTotalKey(campaign.id), 'spent', 700_000_000);
    await Promise.all(
      engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active')),
    );
    const { wins } = await drainBudget(engines, 'JPN');
    // 80 cents = 160 impressions at 0.5 cents, less what the engines' unspent slices keep unused.
    expect(wins).toBeGreaterThanOrEqual(160 - (2 * SLICE_CENTS) / 0.5);
    expect(wins).toBeLessThanOrEqual(160);
    const lifetime = Number(await fx.app.svc.redis.hget(campaignTotalKey(campaign.id), 'spent'));
    expect(lifetime).toBe(700_000_000 + wins * 5_000_000);
    const api = await call<{ total_budget_cents: number; total_spent_cents: number; delivery: { reasons: string[] } }>(
      fx.app,
      'GET',
      `/api/adv/campaigns/${campaign.id}`,
      { token: adv.token },
    );
    expect(api.body).toMatchObject({ total_budget_cents: 150, total_spent_cents: Math.floor(lifetime / 10_000_000) });
    // The engines stopped with less than one impression held by each: the campaign says it is spent
    // whatever fraction of a cent is left (schemas/src/delivery.ts, budgetLeft).
    expect(api.body.delivery.reasons).toContain('total_budget_spent');
  });
});

describe('spend written exactly once', () => {
  const day = () => new Date().toISOString().slice(0, 10);

  it('spend whose write failed is sent again until Redis takes it, and counted once', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['jp'], daily_budget_usd: 100 });
    const budget = engines[0]?.engine.budget as NonNullable<(typeof engines)[0]>['engine']['budget'];
    const engineId = engines[0]?.engine.id as string;
    const before = Number((await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, day()), 'spent')) ?? 0);
    // Scripts refused (as a node in failover would), so the batch fails and is kept.
    await fx.app.svc.redis.call('ACL', 'SETUSER', 'default', '-evalsha', '-eval');
    try {
      budget.recordSpend(campaign.id, adv.id, day(), 7_000_000, engineId);
      await expect(budget.flush()).rejects.toThrow(/NOPERM|permission/i);
      expect(budget.unsentSpend).toBeGreaterThan(0);
      budget.recordSpend(campaign.id, adv.id, day(), 3_000_000, engineId);
    } finally {
      await fx.app.svc.redis.call('ACL', 'SETUSER', 'default', '+@all');
    }
    await eventually(async () => {
      await budget.flush().catch(() => undefined);
      return budget.unsentSpend === 0;
    });
    expect(Number(await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, day()), 'spent')) - before).toBe(10_000_000);
    // 1 cent moved from the pending counter to the ledger.
    const bal = await call<{ balance_cents: number }>(fx.app, 'GET', '/api/adv/balance', { token: adv.token });
    expect(bal.body.balance_cents).toBe(1_000_000 - 1);
  });

  it('a batch delivered twice (its answer lost) is applied once', async () => {
    const redis = new Redis(fx.redis.url);
    defineBudgetScripts(redis);
    const key = campaignPoolKey(999_999, day());
    for (let i = 0; i < 2; i++)
      await redis.budSpendCampaign(
        2,
        key,
        `${key.slice(0, key.lastIndexOf(':'))}:total`,
        5_000_000,
        60_000,
        'engine-x',
        41,
        'engine-x',
        5_000_000,
      );
    await redis.budSpendCampaign(
      2,
      key,
      `${key.slice(0, key.lastIndexOf(':'))}:total`,
      2_000_000,
      60_000,
      'engine-x',
      42,
      'engine-x',
      2_000_000,
    );
    // An older number arriving late is a repeat too.
    await redis.budSpendCampaign(
      2,
      key,
      `${key.slice(0, key.lastIndexOf(':'))}:total`,
      5_000_000,
      60_000,
      'engine-x',
      41,
      'engine-x',
      5_000_000,
    );
    expect(Number(await redis.hget(key, 'spent'))).toBe(7_000_000);
    await redis.quit();
  });
});

describe('ads counted late or after a pause', () => {
  const SECRET = 't'.repeat(40);
  const BROWSER = {
    'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
  };
  const day = () => new Date().toISOString().slice(0, 10);
  const ticketOf = (url: string): BidTicket =>
    decodeTicket(SECRET, (url.split('?')[0] ?? '').split('/').pop() ?? '') as BidTicket;
  const uncounted = async (campaignId: number) => {
    await Promise.all(engines.map((e) => e.engine.events.flush()));
    return (await streamedEvents(fx.app.svc.redis)).filter(
      (e) => e.type === 'uncounted' && e.campaign_id === campaignId,
    );
  };
  /** A bid for `country` from the given engine, once it bids for `campaignId`. */
  const bidFor = async (engine: TestEngine, country: string, campaignId: number) => {
    let nurl = '';
    await eventually(async () => {
      const r = await postBid(
        engine.base,
        bannerRequest({ device: { geo: { country }, language: 'en' } }, { bidfloor: 5 }),
      );
      const bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
      nurl = bid?.nurl ?? '';
      return bid?.cid === String(campaignId);
    });
    return nurl;
  };
  /** The win notice of `ticket` re-signed as if bid 55 s ago (past the 50 s in which the bid's hold is surely there), under a new bid id. */
  const lateWin = (engine: TestEngine, ticket: BidTicket, n: number) =>
    `${engine.base}/openrtb/win/${encodeTicket(SECRET, { ...ticket, bidId: `${ticket.bidId}-late${n}`, issuedAt: ticket.issuedAt - 55 })}?price=5`;

  it('a late win is charged straight from the budget while it covers it, and refused with the reason once it does not; the balance never goes below zero', async () => {
    // The budget binds: $1 a day, drained by prompt wins; then 20 late wins (0.5 cents each) find no room.
    const rich = await world.advertiser(1_000_000);
    const { campaign: byBudget } = await world.campaign(rich, { geo_include: ['br'], daily_budget_usd: 1, bid_usd: 6 });
    // The balance binds: 30 cents against a $100 budget.
    const poor = await world.advertiser(30);
    const { campaign: byBalance } = await world.campaign(poor, {
      geo_include: ['ar'],
      daily_budget_usd: 100,
      bid_usd: 6,
    });
    // Room to spare: a late win is charged straight against pool and balance, to the nano-dollar.
    const ample = await world.advertiser(1_000_000);
    const { campaign: covered } = await world.campaign(ample, {
      geo_include: ['cl'],
      daily_budget_usd: 100,
      bid_usd: 6,
    });
    await Promise.all(
      engines.map((e) =>
        eventually(() =>
          [byBudget, byBalance, covered].every((c) => e.engine.mirror.index?.campaigns.get(c.id)?.status === 'active'),
        ),
      ),
    );
    const [e0, e1] = engines as [TestEngine, TestEngine];

    const coveredTicket = ticketOf(await bidFor(e0, 'CHL', covered.id));
    const spentBefore = Number((await fx.app.svc.redis.hget(campaignPoolKey(covered.id, day()), 'spent')) ?? 0);
    expect(await (await fetch(lateWin(e1, coveredTicket, 0))).json()).toEqual({ ok: true, counted: true });
    // Charged at once, not through a hold: no flush needed.
    expect(Number(await fx.app.svc.redis.hget(campaignPoolKey(covered.id, day()), 'spent')) - spentBefore).toBe(
      5_000_000,
    );
    expect(await (await fetch(lateWin(e0, coveredTicket, 0))).json()).toEqual({ ok: true, counted: false });

    for (const [campaign, country, reason] of [
      [byBudget, 'BRA', 'budget_exhausted'],
      [byBalance, 'ARG', 'balance_exhausted'],
    ] as const) {
      const ticket = ticketOf(await bidFor(e0, country, campaign.id));
      const { wins } = await drainBudget(engines, country);
      expect(wins).toBeGreaterThan(0);
      const pool = campaignPoolKey(campaign.id, day());
      const spent = Number(await fx.app.svc.redis.hget(pool, 'spent'));
      const answers = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          fetch(lateWin(engines[n % 2] as TestEngine, ticket, n)).then((r) => r.json()),
        ),
      );
      expect(answers).toEqual(Array.from({ length: 20 }, () => ({ ok: true, counted: false })));
      expect((await uncounted(campaign.id)).map((e) => [e.of, e.reason])).toEqual(
        Array.from({ length: 20 }, () => ['win', reason]),
      );
      await Promise.all(engines.map((e) => e.engine.budget.flush()));
      expect(Number(await fx.app.svc.redis.hget(pool, 'spent')), reason).toBe(spent);
      const p = await fx.app.svc.redis.hgetall(pool);
      expect(Number(p.spent) + Number(p.held ?? 0)).toBeLessThanOrEqual(campaign.daily_budget_cents * 10_000_000);
    }
    const balance = Number(await fx.app.svc.redis.get(balanceKey(poor.id)));
    expect(balance).toBeGreaterThanOrEqual(0);
    const ledger = (await fx.app.svc.redis.xrange(ledgerKey(poor.id), '-', '+')).map(([, f]) => f);
    expect(30 + ledger.filter((f) => f[1] === 'debit').reduce((s, f) => s + Number(f[3]), 0)).toBe(balance);
  });

  it('charges nothing for the beacon or win notice of an ad served before its campaign was paused', async () => {
    const adv = await world.advertiser(1_000_000);
    const { campaign } = await world.campaign(adv, { geo_include: ['pe'], daily_budget_usd: 100, bid_usd: 6 });
    const zone = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 });
    await Promise.all(
      engines.map((e) =>
        eventually(
          () =>
            e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'active' &&
            e.engine.mirror.index.zones.get(zone.subid)?.serving === true,
        ),
      ),
    );
    const [e0, e1] = engines as [TestEngine, TestEngine];
    const nurl = await bidFor(e0, 'PER', campaign.id);
    let beacon = '';
    await eventually(async () => {
      const r = await fetch(`${e0.base}/imp?z=${zone.subid}&fp=paused-${Date.now()}`, {
        headers: { ...BROWSER, 'x-country': 'PE' },
      });
      beacon = r.status === 200 ? ((await r.json()) as { beacon_url: string }).beacon_url : '';
      return beacon !== '' && ticketOf(beacon).campaignId === campaign.id;
    });
    expect((await call(fx.app, 'POST', `/api/adv/campaigns/${campaign.id}/pause`, { token: adv.token })).status).toBe(
      200,
    );
    await Promise.all(
      engines.map((e) => eventually(() => e.engine.mirror.index?.campaigns.get(campaign.id)?.status === 'paused')),
    );
    // Well within the bids' holds (seconds old), on the other engine and on the bidding one.
    expect(await (await fetch(nurl.replace('${AUCTION_PRICE}', '5'))).json()).toEqual({ ok: true, counted: false });
    expect((await fetch(beacon.replace(e0.base, e1.base), { headers: BROWSER })).status).toBe(200);
    expect((await uncounted(campaign.id)).map((e) => [e.of, e.reason]).sort()).toEqual([
      ['impression', 'campaign_not_active'],
      ['win', 'campaign_not_active'],
    ]);
    await Promise.all(engines.map((e) => e.engine.budget.flush()));
    expect(Number((await fx.app.svc.redis.hget(campaignPoolKey(campaign.id, day()), 'spent')) ?? 0)).toBe(0);
    expect(Number(await fx.app.svc.redis.get(balanceKey(adv.id)))).toBe(1_000_000);
  });
});
