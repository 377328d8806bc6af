import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { eventually, startEngine, streamedEvents } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { World } from '@adnet/test-support/world';

// Schedules through a real engine: a campaign does not serve before its start, from its end on, or
// outside its dayparting hours in its time zone, and does once inside; each with its own no-bid reason.

const fx = useTestApp();
let engine: TestEngine;
let adv: Account;
const zones: Record<'native' | 'banner', { id: number; subid: string }> = {
  native: { id: 0, subid: '' },
  banner: { id: 0, subid: '' },
};
let start = 0;
let end = 0;
let daypartedCampaign = 0;
let timedCampaign = 0;
const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';
const TZ = 'Asia/Kolkata';
const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;

/** Every hour of the week in `TZ` but the current one and the next, as dayparting. */
function allButNow(): Record<string, number[]> {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: TZ,
    weekday: 'short',
    hour: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(Date.now());
  const day = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'].indexOf(
    parts.find((p) => p.type === 'weekday')?.value ?? '',
  );
  const now = day * 24 + Number(parts.find((p) => p.type === 'hour')?.value);
  const out: Record<string, number[]> = {};
  for (let h = 0; h < 168; h++)
    if (h !== now && h !== (now + 1) % 168) (out[DAYS[Math.floor(h / 24)] as string] ??= []).push(h % 24);
  return out;
}

beforeAll(async () => {
  const world = await World.create(fx.app);
  adv = await world.advertiser(1_000_000);
  const site = await world.site();
  zones.native = await world.zone({ format: 'native' }, site);
  zones.banner = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 }, site);
  start = Date.now() + 3_000;
  end = start + 2_000;
  // The start with an offset, as an advertiser in Berlin might send it.
  const berlin = new Date(start + 3_600_000).toISOString().replace('Z', '+01:00');
  timedCampaign = (
    await world.campaign(adv, { format: 'native', start_at: berlin, end_at: new Date(end).toISOString() })
  ).campaign.id;
  daypartedCampaign = (await world.campaign(adv, { format: 'banner', dayparting: allButNow(), timezone: TZ })).campaign
    .id;
  engine = await startEngine(fx.redis.url);
  await eventually(
    () =>
      engine.engine.mirror.index?.candidateCount === 2 &&
      engine.engine.mirror.index.zones.get(zones.banner.subid)?.serving === true,
  );
}, 60_000);
afterAll(async () => {
  await engine.stop();
});

let asked = 0;
const ask = async (zone: 'native' | 'banner') =>
  (await fetch(`${engine.base}/imp?z=${zones[zone].subid}&fp=fp-${++asked}`, { headers: { 'user-agent': UA } })).status;
/** Asks every 100 ms (a person's pace, below the invalid-traffic limits) until the zone answers `status`. */
async function until(zone: 'native' | 'banner', status: number): Promise<void> {
  for (const started = Date.now(); Date.now() - started < 8_000; await new Promise((r) => setTimeout(r, 100)))
    if ((await ask(zone)) === status) return;
  throw new Error(`no ${status} in time`);
}
/** What the admin tells the advertiser: the campaign's `delivery`, which must agree with the engine. */
const delivery = async (id: number) =>
  (await call(fx.app, 'GET', `/api/adv/campaigns/${id}`, { token: adv.token })).body.delivery;
const reasons = async (zone: 'native' | 'banner') =>
  (await streamedEvents(fx.app.svc.redis, engine))
    .filter((e) => e.type === 'nobid' && e.zone_id === zones[zone].id)
    .map((e) => e.reason);

describe('start and end', () => {
  it('serves nothing before start_at, serves from it, and stops at end_at', async () => {
    expect(Date.now()).toBeLessThan(start);
    expect(await ask('native')).toBe(204);
    expect(await reasons('native')).toEqual(['not_started']);
    expect(await delivery(timedCampaign)).toEqual({ serving: false, reasons: ['not_started'] });
    await until('native', 200);
    expect(Date.now()).toBeGreaterThanOrEqual(start);
    await until('native', 204);
    expect(Date.now()).toBeGreaterThanOrEqual(end);
    expect((await reasons('native')).at(-1)).toBe('ended');
    expect(await delivery(timedCampaign)).toEqual({ serving: false, reasons: ['ended'] });
  });
});

describe('dayparting', () => {
  it("serves nothing outside the campaign's hours in its time zone, and serves once the hour is in", async () => {
    expect(await ask('banner')).toBe(204);
    expect(await reasons('banner')).toEqual(['outside_schedule']);
    expect(await delivery(daypartedCampaign)).toEqual({ serving: false, reasons: ['outside_schedule'] });
    const everyHour = Object.fromEntries(DAYS.map((d) => [d, Array.from({ length: 24 }, (_, h) => h)]));
    const r = await call(fx.app, 'PATCH', `/api/adv/campaigns/${daypartedCampaign}`, {
      token: adv.token,
      json: { dayparting: everyHour },
    });
    expect(r.status).toBe(200);
    await eventually(
      () => engine.engine.mirror.index?.campaigns.get(daypartedCampaign)?.dayparting?.mon?.length === 24,
    );
    expect(await ask('banner')).toBe(200);
    expect(await delivery(daypartedCampaign)).toEqual({ serving: true, reasons: [] });
  });
});
