// The routers called directly, as docs/architecture.md promises for every admin endpoint: no HTTP, no
// REST table, only `createCaller` with the context a request would build, on a real Redis.
import { describe, expect, it } from 'vitest';
import { toHttp } from '../src/errors.ts';
import type { Context } from '../src/trpc/init.ts';
import { createCaller } from '../src/trpc/router.ts';
import { account, useTestApp, validCampaign } from '@adnet/test-support/admin';

const fx = useTestApp();
/** The REST tests' campaign, its choices typed as the procedure's input. */
const campaignInput = { ...validCampaign, vertical: 'gambling', format: 'native', bid_type: 'cpm' } as const;

/** The context the tRPC door builds for a bearer token (http/doors.ts), without the request. */
function callerFor(token?: string) {
  const ctx: Context = {
    svc: fx.app.svc,
    req: {
      authorization: token === undefined ? undefined : `Bearer ${token}`,
      sessionCookie: undefined,
      site: { fetchSite: undefined, origin: undefined, cabinet: undefined },
      https: false,
      ip: '127.0.0.1',
      requestId: 'caller-test',
    },
    setCookies: [],
  };
  return createCaller(ctx);
}

/** The HTTP status the doors would answer with for what the call threw. */
async function statusOf(call: Promise<unknown>): Promise<number> {
  try {
    await call;
  } catch (err) {
    return toHttp(err).status;
  }
  return 200;
}

describe('routers through createCaller', () => {
  it('campaigns: an advertiser creates, reads, changes and pauses its own; another advertiser may not', async () => {
    const adv = callerFor((await account(fx.app, 'advertiser')).token);
    const created = await adv.adv.campaigns.create(campaignInput);
    expect(created).toMatchObject({ name: campaignInput.name, status: 'draft' });
    expect((await adv.adv.campaigns.list()).campaigns.map((c) => c.id)).toContain(created.id);
    expect(await adv.adv.campaigns.update({ id: created.id, name: 'Renamed' })).toMatchObject({
      id: created.id,
      name: 'Renamed',
    });
    expect((await adv.adv.campaigns.get({ id: created.id })).name).toBe('Renamed');

    const other = callerFor((await account(fx.app, 'advertiser')).token);
    expect(await statusOf(other.adv.campaigns.get({ id: created.id }))).toBe(403);
    expect(await statusOf(other.adv.campaigns.update({ id: created.id, name: 'Taken' }))).toBe(403);
    expect(await statusOf(adv.adv.campaigns.get({ id: 99_999_999 }))).toBe(404);
  });

  it('target CPA: a campaign with a target answers its zone bids; a test budget defaults to twice the target', async () => {
    const adv = callerFor((await account(fx.app, 'advertiser')).token);
    const created = await adv.adv.campaigns.create({ ...campaignInput, target_cpa_usd: 12.5 });
    expect(created).toMatchObject({ target_cpa_cents: 1250, cpa_test_budget_cents: 2500 });
    expect(await adv.adv.campaigns.zoneBids({ id: created.id })).toEqual({
      target_cpa_cents: 1250,
      cpa_test_budget_cents: 2500,
      conversions: 0,
      zones: [],
    });
    expect(await adv.adv.campaigns.update({ id: created.id, cpa_test_budget_usd: 40 })).toMatchObject({
      target_cpa_cents: 1250,
      cpa_test_budget_cents: 4000,
    });
    expect(await statusOf(adv.adv.campaigns.update({ id: created.id, target_cpa_usd: 0 }))).toBe(400);
    const other = callerFor((await account(fx.app, 'advertiser')).token);
    expect(await statusOf(other.adv.campaigns.zoneBids({ id: created.id }))).toBe(403);
  });

  it('audiences: an advertiser creates, lists and deletes its own and names them on its campaigns; another may not', async () => {
    const adv = callerFor((await account(fx.app, 'advertiser')).token);
    const campaign = await adv.adv.campaigns.create(campaignInput);
    const clicked = await adv.adv.audiences.create({
      name: 'Clickers',
      source: 'clicked',
      campaign_ids: [campaign.id],
      lifetime_days: 30,
    });
    expect(clicked).toMatchObject({ source: 'clicked', campaign_ids: [campaign.id], pixel_url: null });
    const pixel = await adv.adv.audiences.create({ name: 'Site', source: 'pixel', lifetime_days: 7 });
    expect(pixel.pixel_url).toMatch(/\/px\/[A-Za-z0-9_-]{22}\.gif$/);
    expect((await adv.adv.audiences.list()).audiences.map((a) => a.id)).toEqual([clicked.id, pixel.id]);
    const updated = await adv.adv.campaigns.update({ id: campaign.id, audiences_include: [pixel.id, pixel.id] });
    expect(updated.audiences_include).toEqual([pixel.id]);
    expect(await statusOf(adv.adv.audiences.delete({ id: pixel.id }))).toBe(409);
    expect(await adv.adv.audiences.delete({ id: clicked.id })).toEqual({ ok: true });
    expect(await statusOf(adv.adv.audiences.get({ id: clicked.id }))).toBe(404);

    const other = callerFor((await account(fx.app, 'advertiser')).token);
    expect(await statusOf(other.adv.audiences.get({ id: pixel.id }))).toBe(403);
    expect(await statusOf(other.adv.audiences.delete({ id: pixel.id }))).toBe(403);
    expect(
      await statusOf(
        other.adv.audiences.create({ name: 'x', source: 'viewed', campaign_ids: [campaign.id], lifetime_days: 1 }),
      ),
    ).toBe(403);
    const theirs = await other.adv.campaigns.create(campaignInput);
    expect(await statusOf(other.adv.campaigns.update({ id: theirs.id, audiences_exclude: [pixel.id] }))).toBe(403);
  });

  it('sites and zones: a publisher registers a site and a zone on it; the admin reviews only verified sites', async () => {
    const pub = callerFor((await account(fx.app, 'publisher')).token);
    const domain = `caller-${Date.now()}.example`;
    const site = await pub.pub.sites.create({ domain, category: 'news', language: 'en', traffic_estimate_daily: 100 });
    expect(site).toMatchObject({ domain, status: 'draft' });
    expect(
      await statusOf(pub.pub.sites.create({ domain, category: 'news', language: 'en', traffic_estimate_daily: 100 })),
    ).toBe(409);
    const zone = await pub.pub.zones.create({ site_id: site.id, name: 'Sidebar', format: 'native' });
    expect((await pub.pub.zones.list()).zones.map((z) => z.id)).toContain(zone.id);
    expect(await pub.pub.zones.pause({ id: zone.id })).toMatchObject({ id: zone.id, status: 'paused' });

    const admin = callerFor((await account(fx.app, 'admin')).token);
    // Unverified, the site is not in the review queue and cannot be approved.
    expect((await admin.admin.siteQueue()).sites.map((s) => s.id)).not.toContain(site.id);
    expect(await statusOf(admin.admin.approveSite({ id: site.id }))).toBe(409);
    expect(await statusOf(pub.admin.approveSite({ id: site.id }))).toBe(403);
  });

  it('partners and deals: the admin names existing partners and campaigns only, and a deal id once', async () => {
    const admin = callerFor((await account(fx.app, 'admin')).token);
    const adv = callerFor((await account(fx.app, 'advertiser')).token);
    const campaign = await adv.adv.campaigns.create(campaignInput);
    const partner = await admin.admin.createPartner({ name: 'Caller exchange', allowed_ips: ['192.0.2.45'] });
    expect((await admin.admin.listPartners()).partners.map((p) => p.id)).toContain(partner.id);

    const id = `CALLER-${Date.now()}`;
    const deal = await admin.admin.createDeal({
      id,
      floor_usd: 2,
      partner_ids: [partner.id],
      campaign_ids: [campaign.id],
    });
    expect(deal).toMatchObject({ id, floor_usd: 2, partner_ids: [partner.id], campaign_ids: [campaign.id] });
    expect(
      await statusOf(
        admin.admin.createDeal({ id, floor_usd: 2, partner_ids: [partner.id], campaign_ids: [campaign.id] }),
      ),
    ).toBe(409);
    expect(
      await statusOf(
        admin.admin.createDeal({ id: `${id}-B`, floor_usd: 2, partner_ids: [99_999_999], campaign_ids: [campaign.id] }),
      ),
    ).toBe(400);
    expect(await admin.admin.updateDeal({ id, floor_usd: 3 })).toMatchObject({ id, floor_usd: 3 });
    await admin.admin.deleteDeal({ id });
    expect(await statusOf(admin.admin.getDeal({ id }))).toBe(404);
  });

  it('roles and tokens: no token is a 401, another role a 403, and API keys are the caller’s own', async () => {
    expect(await statusOf(callerFor().auth.me())).toBe(401);
    const adv = callerFor((await account(fx.app, 'advertiser')).token);
    expect(await statusOf(adv.admin.listPartners())).toBe(403);
    expect(await statusOf(adv.pub.sites.list())).toBe(403);
    expect((await adv.auth.me()).role).toBe('advertiser');

    const made = await adv.keys.create({ name: 'reporting', scopes: ['stats'] });
    expect((await adv.keys.list()).keys.map((k) => k.id)).toContain(made.id);
    const other = callerFor((await account(fx.app, 'advertiser')).token);
    expect((await other.keys.list()).keys.map((k) => k.id)).not.toContain(made.id);
    await adv.keys.revoke({ id: made.id });
    expect((await adv.keys.list()).keys.map((k) => k.id)).not.toContain(made.id);
  });
});
