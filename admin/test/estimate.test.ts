import type { Estimate } from '@adnet/schemas/estimate';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { requestsOf, weekOfTraffic } from '@adnet/test-support/estimate-traffic';
import type { RecordedRequest } from '@adnet/test-support/estimate-traffic';
import { ingestAll } from '@adnet/test-support/ingest-all';
import { World } from '@adnet/test-support/world';
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';

// POST /api/adv/estimate over a week of traffic written to the events stream as engines write it, ingested by
// the admin's own ingester into embedded chDB: every figure checked against a count of the very events.

const fx = useTestApp({}, { clickhouse: true, parts: ['ingester'] });
let adv: Account;
let requests: RecordedRequest[];
let native: { id: number; subid: string };
let banner: { id: number; subid: string };
let nativeSite: number;

beforeAll(async () => {
  const world = await World.create(fx.app);
  adv = await account(fx.app, 'advertiser');
  const site = await world.site();
  nativeSite = site.id;
  native = await world.zone({ format: 'native' }, site);
  banner = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 });
  const bannerSite = (await fx.app.svc.configStore.read<{ site_id: number }>('zone', banner.id))?.value.site_id ?? 0;
  const events = weekOfTraffic({
    zones: [
      { id: native.id, siteId: nativeSite },
      { id: banner.id, siteId: bannerSite },
    ],
    perHour: 40,
    now: Date.now(),
  });
  for (let i = 0; i < events.length; i += 500)
    await fx.app.svc.redis.xadd(...xaddArgs(events.slice(i, i + 500), 10_000_000));
  await ingestAll(fx.app, []);
  requests = requestsOf(events);
}, 120_000);

const base = { format: 'native', bid_type: 'cpm', bid_usd: 1, daily_budget_usd: 100_000 };
const estimate = async (fields: Record<string, unknown>) => {
  const r = await call<Estimate>(fx.app, 'POST', '/api/adv/estimate', {
    token: adv.token,
    json: { ...base, ...fields },
  });
  expect(r.status, JSON.stringify(r.body)).toBe(200);
  return r.body;
};
const perDay = (n: number) => Math.round((n / 7) * 10) / 10;

describe('POST /api/adv/estimate', () => {
  it("counts the week's matching requests, wins those the bid beats and reads the winning prices", async () => {
    const e = await estimate({ geo_include: ['us'], device_types: ['mobile'] });
    // Native: our native zone and the exchange's requests (which record no format); bots left out.
    const matching = requests.filter(
      (r) => (r.zoneId === native.id || r.zoneId === 0) && r.country === 'us' && r.device === 'mobile',
    );
    expect(matching.length).toBeGreaterThan(500);
    expect(e.window_days).toBe(7);
    expect(e.requests_per_day).toBe(perDay(matching.length));
    const won = matching.filter((r) => r.priceMicroCents === undefined || r.priceMicroCents < 100_000).length;
    // Prices are summed in 2 % buckets: a bid decides a bucket as a whole.
    expect(Math.abs(e.win_rate - won / matching.length)).toBeLessThan(0.02);
    expect(e.impressions_per_day).toBeCloseTo(e.requests_per_day * e.win_rate, -1);
    const prices = matching.flatMap((r) => (r.priceMicroCents === undefined ? [] : [r.priceMicroCents]));
    prices.sort((a, b) => a - b);
    const median = (prices[Math.floor(prices.length / 2)] ?? 0) / 100_000;
    expect(Math.abs((e.cpm_percentiles_usd.p50 ?? 0) - median) / median).toBeLessThan(0.03);
    expect(e.cpm_percentiles_usd.p25).toBeLessThan(e.cpm_percentiles_usd.p50 ?? 0);
    expect(e.cpm_percentiles_usd.p75).toBeLessThan(e.cpm_percentiles_usd.p90 ?? 0);
    expect(e.min_bid_usd).toBeLessThan(e.recommended_bid_usd);
    expect(e.recommended_bid_usd).toBeGreaterThan(e.cpm_percentiles_usd.p75 ?? 0);
  });

  it('narrows by format through the zone: push finds none, banner its zone and the exchange', async () => {
    expect((await estimate({ format: 'push' })).requests_per_day).toBe(0);
    const bannerRequests = requests.filter((r) => r.zoneId === banner.id || r.zoneId === 0);
    expect((await estimate({ format: 'banner' })).requests_per_day).toBe(perDay(bannerRequests.length));
  });

  it("narrows by the source list's zones and sites, and by dayparting in the campaign's time zone", async () => {
    const onNative = requests.filter((r) => r.zoneId === native.id).length;
    expect((await estimate({ sources: { mode: 'include', zones: [native.subid] } })).requests_per_day).toBe(
      perDay(onNative),
    );
    expect((await estimate({ sources: { mode: 'include', sites: [nativeSite] } })).requests_per_day).toBe(
      perDay(onNative),
    );
    const exchange = requests.filter((r) => r.zoneId === 0).length;
    expect((await estimate({ sources: { mode: 'exclude', zones: [native.subid] } })).requests_per_day).toBe(
      perDay(exchange),
    );
    // Mondays 9-17 in Berlin.
    const berlin = new Intl.DateTimeFormat('en-GB', {
      timeZone: 'Europe/Berlin',
      weekday: 'short',
      hour: 'numeric',
      hourCycle: 'h23',
    });
    const local = (ts: number) => {
      const parts = berlin.formatToParts(new Date(ts));
      return {
        day: parts.find((p) => p.type === 'weekday')?.value,
        hour: Number(parts.find((p) => p.type === 'hour')?.value),
      };
    };
    const hours = [9, 10, 11, 12, 13, 14, 15, 16, 17];
    const monday = requests.filter((r) => {
      const l = local(Math.floor(r.ts / 3_600_000) * 3_600_000);
      return (r.zoneId === native.id || r.zoneId === 0) && l.day === 'Mon' && hours.includes(l.hour);
    });
    const e = await estimate({ dayparting: { mon: hours }, timezone: 'Europe/Berlin' });
    expect(e.requests_per_day).toBe(perDay(monday.length));
  });

  it('narrower targeting never finds more requests; more budget never buys fewer impressions', async () => {
    const some = <T>(values: readonly T[]) => fc.subarray([...values], { minLength: 1 });
    const targeting = fc.record({
      geo_include: some(['us', 'de', 'fr', 'gb']),
      device_types: some(['mobile', 'desktop', 'tablet']),
      os_include: some(['android', 'ios', 'windows', 'macos']),
      browser_include: some(['chrome', 'safari', 'firefox', 'edge']),
    });
    await fc.assert(
      fc.asyncProperty(
        targeting,
        fc.constantFrom('geo_include', 'device_types', 'os_include', 'browser_include'),
        fc.integer({ min: 1, max: 300 }),
        async (wide, field, cents) => {
          const narrow = { ...wide, [field]: wide[field].slice(0, 1) };
          const [w, n] = await Promise.all([estimate(wide), estimate(narrow)]);
          expect(n.requests_per_day).toBeLessThanOrEqual(w.requests_per_day);
          // More budget at the same bid; a higher bid at a budget that does not bind (past it, a higher bid
          // buys dearer impressions, fewer of them, as the auction does: tests/e2e/estimate-replay.test.ts).
          const bid = cents / 100;
          const [small, large, low, high] = await Promise.all([
            estimate({ ...wide, bid_usd: bid, daily_budget_usd: 1 }),
            estimate({ ...wide, bid_usd: bid, daily_budget_usd: 2 }),
            estimate({ ...wide, bid_usd: bid, daily_budget_usd: 100_000 }),
            estimate({ ...wide, bid_usd: (cents + 50) / 100, daily_budget_usd: 100_000 }),
          ]);
          expect(large.impressions_per_day).toBeGreaterThanOrEqual(small.impressions_per_day);
          expect(high.impressions_per_day).toBeGreaterThanOrEqual(low.impressions_per_day);
          expect(high.win_rate).toBeGreaterThanOrEqual(low.win_rate);
        },
      ),
      { numRuns: 12 },
    );
  }, 60_000);

  it('refuses invalid targeting with 400 naming every field, as a new campaign would', async () => {
    const r = await call<{ errors: Record<string, string> }>(fx.app, 'POST', '/api/adv/estimate', {
      token: adv.token,
      json: {
        format: 'poster',
        geo_include: ['zz'],
        languages: ['klingon'],
        device_types: ['fridge'],
        os_include: ['beos'],
        browser_include: ['mosaic'],
        connection_types: ['pigeon'],
        sources: { mode: 'maybe' },
        dayparting: { mon: [24] },
        timezone: 'Mars/Olympus',
        frequency_cap: { impressions: 0, period_hours: 1 },
        bid_type: 'cpa',
        bid_usd: 0,
        daily_budget_usd: 'ten',
      },
    });
    expect(r.status).toBe(400);
    const named = Object.keys(r.body.errors).map((k) => k.split('.')[0]);
    expect(new Set(named)).toEqual(
      new Set([
        'format',
        'geo_include',
        'languages',
        'device_types',
        'os_include',
        'browser_include',
        'connection_types',
        'sources',
        'dayparting',
        'timezone',
        'frequency_cap',
        'bid_type',
        'bid_usd',
        'daily_budget_usd',
      ]),
    );
    const missing = await call<{ errors: Record<string, string> }>(fx.app, 'POST', '/api/adv/estimate', {
      token: adv.token,
      json: {},
    });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toMatchObject({ format: 'is required', bid_usd: 'is required' });
  });

  it('is for advertisers', async () => {
    expect((await call(fx.app, 'POST', '/api/adv/estimate', { json: base })).status).toBe(401);
    const publisher = await account(fx.app, 'publisher');
    expect((await call(fx.app, 'POST', '/api/adv/estimate', { token: publisher.token, json: base })).status).toBe(403);
  });
});
