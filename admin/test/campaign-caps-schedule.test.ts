import type { StoredCampaign } from '@adnet/schemas/api';
import { beforeAll, describe, expect, it } from 'vitest';
import { account, call, validCampaign, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';

// Frequency caps and schedules through the real API: stored as given (normalised), refused with the
// field's name, removable with null, and absent on campaigns stored before them.

const fx = useTestApp();
let adv: Account;

beforeAll(async () => {
  adv = await account(fx.app, 'advertiser');
});

type Body = Record<string, unknown> & { id: number; errors?: Record<string, string> };
const create = (json: unknown) => call<Body>(fx.app, 'POST', '/api/adv/campaigns', { token: adv.token, json });
const update = (id: number, json: unknown) =>
  call<Body>(fx.app, 'PATCH', `/api/adv/campaigns/${id}`, { token: adv.token, json });

describe('frequency cap and schedule', () => {
  it('are stored and returned, times in UTC, hours sorted, the zone as the runtime names it', async () => {
    const r = await create({
      ...validCampaign,
      frequency_cap: { impressions: 3, period_hours: 24 },
      start_at: '2026-12-01T09:00:00+01:00',
      end_at: '2026-12-31T23:00:00Z',
      dayparting: { mon: [17, 9, 9, 10], sun: [], fri: [23] },
      timezone: 'europe/berlin',
    });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      frequency_cap: { impressions: 3, period_hours: 24 },
      start_at: '2026-12-01T08:00:00.000Z',
      end_at: '2026-12-31T23:00:00.000Z',
      dayparting: { mon: [9, 10, 17], fri: [23] },
      timezone: 'Europe/Berlin',
    });
    const got = await call<Body>(fx.app, 'GET', `/api/adv/campaigns/${r.body.id}`, { token: adv.token });
    expect(got.body).toMatchObject({ frequency_cap: { impressions: 3, period_hours: 24 }, timezone: 'Europe/Berlin' });
  });

  it('are absent by default: no cap, always on, UTC', async () => {
    const r = await create(validCampaign);
    expect(r.body).toMatchObject({
      frequency_cap: null,
      start_at: null,
      end_at: null,
      dayparting: null,
      timezone: 'UTC',
    });
  });

  it.each([
    ['frequency_cap.impressions', { frequency_cap: { impressions: 0, period_hours: 24 } }],
    ['frequency_cap.impressions', { frequency_cap: { impressions: 1001, period_hours: 24 } }],
    ['frequency_cap.period_hours', { frequency_cap: { impressions: 2, period_hours: 721 } }],
    ['frequency_cap.period_hours', { frequency_cap: { impressions: 2, period_hours: 1.5 } }],
    ['frequency_cap.period_hours', { frequency_cap: { impressions: 2 } }],
    ['start_at', { start_at: '2026-12-01T09:00:00' }],
    ['end_at', { end_at: 'tomorrow' }],
    ['end_at', { start_at: '2026-12-01T09:00:00Z', end_at: '2026-12-01T10:00:00+01:00' }],
    ['dayparting.mon.1', { dayparting: { mon: [9, 24] } }],
    ['dayparting.tue.0', { dayparting: { tue: [-1] } }],
    ['dayparting', { dayparting: { monday: [9] } }],
    ['dayparting', { dayparting: { mon: [] } }],
    ['timezone', { timezone: 'Mars/Olympus' }],
    ['timezone', { timezone: '+01:00' }],
  ])('400 naming %s', async (field, fields) => {
    const r = await create({ ...validCampaign, ...fields });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors ?? {})).toEqual([field]);
  });

  it('names every bad field in one answer, the end beside the others', async () => {
    const r = await create({
      ...validCampaign,
      bid_usd: 0,
      frequency_cap: { impressions: 0, period_hours: 1 },
      start_at: '2027-01-01T00:00:00Z',
      end_at: '2026-01-01T00:00:00Z',
    });
    expect(Object.keys(r.body.errors ?? {}).sort()).toEqual(['bid_usd', 'end_at', 'frequency_cap.impressions']);
  });

  it('update: sets, checks the end against the stored start, and removes with null', async () => {
    const c = await create({ ...validCampaign, start_at: '2026-12-01T00:00:00Z' });
    const early = await update(c.body.id, { end_at: '2026-11-30T00:00:00Z' });
    expect(early.status).toBe(400);
    expect(early.body.errors).toEqual({ end_at: 'must be after start_at' });
    const set = await update(c.body.id, {
      end_at: '2026-12-02T00:00:00Z',
      frequency_cap: { impressions: 5, period_hours: 1 },
      dayparting: { sat: [0] },
      timezone: 'Asia/Tokyo',
    });
    expect(set.status).toBe(200);
    expect(set.body).toMatchObject({
      end_at: '2026-12-02T00:00:00.000Z',
      frequency_cap: { impressions: 5, period_hours: 1 },
      dayparting: { sat: [0] },
      timezone: 'Asia/Tokyo',
    });
    const cleared = await update(c.body.id, { frequency_cap: null, start_at: null, end_at: null, dayparting: null });
    expect(cleared.body).toMatchObject({
      frequency_cap: null,
      start_at: null,
      end_at: null,
      dayparting: null,
      timezone: 'Asia/Tokyo',
      name: validCampaign.name,
    });
    expect((await update(c.body.id, { timezone: 'Nowhere/Land' })).body.errors).toEqual({
      timezone: 'must be an IANA time zone name, e.g. Europe/Berlin',
    });
  });

  it('a campaign stored before caps and schedules reads as none', async () => {
    const c = await create(validCampaign);
    await fx.app.svc.configStore.update<StoredCampaign>(
      'campaign',
      c.body.id,
      (stored) => {
        const { frequency_cap: _f, start_at: _s, end_at: _e, dayparting: _d, timezone: _t, ...old } = stored;
        return { value: old as StoredCampaign };
      },
      () => new Error('no campaign'),
    );
    const got = await call<Body>(fx.app, 'GET', `/api/adv/campaigns/${c.body.id}`, { token: adv.token });
    expect(got.body).toMatchObject({
      frequency_cap: null,
      start_at: null,
      end_at: null,
      dayparting: null,
      timezone: 'UTC',
    });
  });
});
