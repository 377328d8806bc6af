import { beforeAll, describe, expect, it } from 'vitest';
import { accounts, call, nativeCreativeForm, useTestApp, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { trpcClient } from './support/trpc-client.ts';

// The admin's directory: search, filter, sort and page advertisers, publishers, sites and campaigns; open one
// account or campaign; the moderation queue names whose each creative is. docs/admin-directory.md.
const fx = useTestApp();
let adv: Account;
let adv2: Account;
let pub: Account;
let admin: Account;
let campaignId: number;

interface Page<T> {
  total: number;
  offset: number;
  limit: number;
  items: T[];
}
const get = <T>(path: string, who: Account = admin) =>
  call<T & { errors?: Record<string, string> }>(fx.app, 'GET', path, { token: who.token });

beforeAll(async () => {
  [adv, adv2, pub, admin] = await accounts(fx.app, 'advertiser', 'advertiser', 'publisher', 'admin');
  const c = await call<{ id: number }>(fx.app, 'POST', '/api/adv/campaigns', {
    token: adv.token,
    json: { ...validCampaign, name: 'Zebra crossing promo' },
  });
  campaignId = c.body.id;
  await call(fx.app, 'POST', '/api/adv/campaigns', {
    token: adv2.token,
    json: { ...validCampaign, name: 'Aardvark deals' },
  });
  await call(fx.app, 'POST', '/api/pub/sites', {
    token: pub.token,
    json: { domain: 'quiet-news.example', category: 'news', language: 'en', traffic_estimate_daily: 100 },
  });
  await call(fx.app, 'POST', `/api/adv/campaigns/${campaignId}/creatives`, {
    token: adv.token,
    form: nativeCreativeForm(),
  });
  await call(fx.app, 'POST', `/api/admin/advertisers/${adv.id}/credit`, {
    token: admin.token,
    json: { amount_cents: 2_500, reason: 'Goodwill for the outage of 28 Nov' },
  });
});

describe('admin directory', () => {
  it('finds campaigns by name, with the advertiser named, and opens one', async () => {
    const r = await get<Page<{ id: number; name: string; advertiser_email: string; vertical: string }>>(
      '/api/admin/search/campaigns?q=zebra',
    );
    expect(r.status).toBe(200);
    expect(r.body.total).toBe(1);
    expect(r.body.items[0]).toMatchObject({
      id: campaignId,
      name: 'Zebra crossing promo',
      advertiser_email: adv.email,
      vertical: 'gambling',
    });
    const sorted = await get<Page<{ name: string }>>('/api/admin/search/campaigns?sort=name&dir=desc&limit=2');
    expect(sorted.body.items.map((c) => c.name)).toEqual(['Zebra crossing promo', 'Aardvark deals']);
    const none = await get<Page<unknown>>('/api/admin/search/campaigns?status=archived');
    expect(none.body.total).toBe(0);
    const one = await get<{ name: string; advertiser_email: string; creatives: { status: string }[] }>(
      `/api/admin/campaigns/${campaignId}`,
    );
    expect(one.body).toMatchObject({ name: 'Zebra crossing promo', advertiser_email: adv.email });
    expect(one.body.creatives.map((c) => c.status)).toEqual(['pending_moderation']);
    expect((await get('/api/admin/campaigns/999999')).status).toBe(404);
  });

  it('finds publishers by email or site domain, sites by domain, advertisers by a campaign name', async () => {
    const byDomain = await get<Page<{ id: number; sites: number }>>('/api/admin/search/publishers?q=quiet-news');
    expect(byDomain.body.items).toEqual([expect.objectContaining({ id: pub.id, sites: 1 })]);
    const sites = await get<Page<{ domain: string; publisher_email: string; status: string }>>(
      '/api/admin/search/sites?q=quiet&status=draft',
    );
    expect(sites.body.items).toEqual([
      expect.objectContaining({ domain: 'quiet-news.example', publisher_email: pub.email, status: 'draft' }),
    ]);
    const advs = await get<Page<{ id: number; balance_cents: number; campaigns: number }>>(
      '/api/admin/search/advertisers?q=zebra',
    );
    expect(advs.body.items).toEqual([expect.objectContaining({ id: adv.id, balance_cents: 2_500, campaigns: 1 })]);
    const paged = await get<Page<unknown>>('/api/admin/search/advertisers?limit=1&offset=1');
    expect(paged.body).toMatchObject({ total: 2, offset: 1, limit: 1 });
    expect(paged.body.items).toHaveLength(1);
  });

  it('opens an account: the credit and its reason are in the ledger', async () => {
    const a = await get<{
      email: string;
      balance_cents: number;
      ledger: { amount_cents: number; reason: string }[];
      campaigns: { name: string }[];
    }>(`/api/admin/accounts/${adv.id}`);
    expect(a.body).toMatchObject({ email: adv.email, balance_cents: 2_500 });
    expect(a.body.ledger[0]).toMatchObject({ amount_cents: 2_500, reason: 'Goodwill for the outage of 28 Nov' });
    expect(a.body.campaigns.map((c) => c.name)).toEqual(['Zebra crossing promo']);
    const p = await get<{ role: string; balance_cents: number | null; sites: { domain: string }[] }>(
      `/api/admin/accounts/${pub.id}`,
    );
    expect(p.body).toMatchObject({ role: 'publisher', balance_cents: null, sites: [{ domain: 'quiet-news.example' }] });
    expect((await get('/api/admin/accounts/999999')).status).toBe(404);
  });

  it('names whose each creative in the queue is, what the campaign sells and where it leads', async () => {
    const q = await get<{ creatives: Record<string, unknown>[] }>('/api/admin/moderation/creatives');
    expect(q.body.creatives[0]).toMatchObject({
      advertiser_email: adv.email,
      campaign_name: 'Zebra crossing promo',
      vertical: 'gambling',
      landing_domain: 'offers.example.net',
    });
  });

  it.each([
    ['/api/admin/search/campaigns?limit=101', 'limit', 'must be at most 100'],
    ['/api/admin/search/campaigns?limit=0', 'limit', 'must be at least 1'],
    ['/api/admin/search/advertisers?offset=-1', 'offset', 'must be at least 0'],
    ['/api/admin/search/publishers?sort=password', 'sort', 'must be one of id, email, sites, created_at'],
    ['/api/admin/search/sites?status=gone', 'status', 'must be one of draft, pending_review, approved, rejected'],
    ['/api/admin/search/campaigns?dir=up', 'dir', 'must be asc or desc'],
    [`/api/admin/search/advertisers?q=${'x'.repeat(101)}`, 'q', 'must be at most 100 characters'],
    ['/api/admin/search/sites?offset=ten', 'offset', 'must be a whole number'],
  ])('400 naming the field for %s', async (path, field, message) => {
    const r = await get(path);
    expect(r.status).toBe(400);
    expect(r.body.errors?.[field]).toBe(message);
  });

  it('403 for advertisers and publishers', async () => {
    for (const who of [adv, pub])
      for (const path of [
        '/api/admin/search/advertisers',
        '/api/admin/search/publishers',
        '/api/admin/search/sites',
        '/api/admin/search/campaigns',
        `/api/admin/accounts/${adv.id}`,
        `/api/admin/campaigns/${campaignId}`,
      ])
        expect((await get(path, who)).status, `${path} as ${who.email}`).toBe(403);
  });

  it("names the ids of the admin's statistics with whose they are; only for admins, at most 500 ids", async () => {
    const sites = await get<Page<{ id: number }>>('/api/admin/search/sites');
    const siteId = sites.body.items[0]?.id ?? 0;
    const names = await trpcClient(fx.app.base, admin.token).admin.names.query({
      campaigns: [campaignId, 999_999],
      sites: [siteId],
    });
    expect(names.campaigns).toEqual([
      { id: campaignId, name: 'Zebra crossing promo', advertiser_id: adv.id, advertiser_email: adv.email },
    ]);
    expect(names.sites).toEqual([
      { id: siteId, domain: 'quiet-news.example', publisher_id: pub.id, publisher_email: pub.email },
    ]);
    expect(names.zones).toEqual([]);
    await expect(
      trpcClient(fx.app.base, admin.token).admin.names.query({
        campaigns: Array.from({ length: 501 }, (_, i) => i + 1),
      }),
    ).rejects.toThrow(/at most 500 ids/);
    await expect(
      trpcClient(fx.app.base, adv.token).admin.names.query({ campaigns: [campaignId] }),
    ).rejects.toMatchObject({ data: { httpStatus: 403 } });
  });

  it('states the deposit limits the deposit form enforces, to advertisers', async () => {
    const r = await get<{ min_cents: number; max_cents: number }>('/api/adv/deposit-limits', adv);
    expect(r.body).toEqual({ min_cents: 1_000, max_cents: 1_000_000 });
    expect((await get('/api/adv/deposit-limits', pub)).status).toBe(403);
  });
});
