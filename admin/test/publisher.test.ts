import { createServer } from 'node:http';
import { readChanges, readSnapshot } from '@adnet/schemas/wire/change-log';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { account, call, startApp } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { freePort, startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';

/** A local web server standing in for publishers' sites, chosen by Host header. */
let siteServer: Server;
let sitePort: number;
/** A port where nothing of the site listens (the redirect to another port). */
let otherPort: number;
/** Requests that reached the other host a redirect pointed to. */
const offSiteHits: string[] = [];
const codes = new Map<string, string>();
let redis: TestRedis;
let app: TestApp;
let pub: Account;
let other: Account;
let admin: Account;

function page(host: string): { status: number; headers?: Record<string, string>; body?: string; hang?: boolean } {
  const name = host.split(':')[0] ?? '';
  const code = codes.get(name) ?? 'none';
  if (name.startsWith('good'))
    return {
      status: 200,
      body: `<html><head><title>x</title><meta content="${code}" name='adnet-verification'></head><body>hi</body></html>`,
    };
  // To the site's own www.: allowed.
  if (name.startsWith('redirect'))
    return { status: 302, headers: { location: `http://www.${name}:${sitePort}/landing` } };
  // To another host, or another port of the same host: not followed, even though the page there has the code.
  if (name.startsWith('elsewhere'))
    return { status: 302, headers: { location: `http://good-final.test:${sitePort}/landing?for=${name}` } };
  if (name.startsWith('portjump')) return { status: 302, headers: { location: `http://${name}:${otherPort}/landing` } };
  if (name.startsWith('loop')) return { status: 301, headers: { location: '/again' } };
  if (name.startsWith('huge'))
    return { status: 200, body: 'x'.repeat(700 * 1024) + `<meta name="adnet-verification" content="${code}">` };
  if (name.startsWith('slow')) return { status: 200, hang: true };
  return { status: 200, body: '<html><head><meta name="description" content="no code here"></head></html>' };
}

beforeAll(async () => {
  siteServer = createServer((req, res) => {
    const host = req.headers.host ?? '';
    if (req.url === '/.well-known/adnet-verification.txt' && host.startsWith('file'))
      return void res.end(`${codes.get(host.split(':')[0] ?? '')}\n`);
    if (host.startsWith('www.redirect'))
      return void res.end(`<meta name="adnet-verification" content="${codes.get(host.slice(4).split(':')[0] ?? '')}">`);
    if (host.startsWith('good-final')) {
      offSiteHits.push(req.url ?? '');
      const code = codes.get(new URL(req.url ?? '/', 'http://x').searchParams.get('for') ?? '');
      return void res.end(`<meta name="adnet-verification" content="${code}">`);
    }
    const p = page(host);
    if (p.hang) return; // never answers
    res.writeHead(p.status, p.headers);
    res.end(p.body ?? '');
  });
  await new Promise<void>((r) => siteServer.listen(0, '127.0.0.1', r));
  sitePort = (siteServer.address() as AddressInfo).port;
  otherPort = await freePort();
  redis = await startRedis();
  app = await startApp(redis.url, {
    VERIFY_ALLOW_LOOPBACK: 'true',
    VERIFY_STATIC_HOSTS: '*.test=127.0.0.1,down.example=127.0.0.2,intranet.example=10.1.2.3',
    VERIFY_HTTP_PORT: String(sitePort),
    // Nothing listens here: every https attempt fails and verification falls back to http, as it would for a plain-http site.
    VERIFY_HTTPS_PORT: String(await freePort()),
    VERIFY_TIMEOUT_MS: '700',
    PUBLIC_BASE_URL: 'https://ads.network.example',
  });
  [pub, other, admin] = await Promise.all([
    account(app, 'publisher'),
    account(app, 'publisher'),
    account(app, 'admin'),
  ]);
});
afterAll(async () => {
  await app.close();
  await redis.stop();
  siteServer.closeAllConnections();
  siteServer.close();
});

let n = 0;
async function site(domain: string, who = pub) {
  const r = await call<Record<string, unknown> & { id: number; verification_code: string }>(
    app,
    'POST',
    '/api/pub/sites',
    {
      token: who.token,
      json: { domain, category: 'news', language: 'en', traffic_estimate_daily: 5000 },
    },
  );
  if (r.status === 201) codes.set(String(r.body.domain), r.body.verification_code);
  return r;
}
const uniq = (prefix: string) => `${prefix}-${++n}.test`;

describe('sites', () => {
  it('201 draft with a verification code and the ads.txt line; the domain is normalised', async () => {
    const r = await site(`https://WWW.${uniq('good')}/path?x=1`);
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      domain: expect.stringMatching(/^www\.good-\d+\.test$/),
      status: 'draft',
      verification_code: expect.stringMatching(/^adnet-[0-9a-f]{24}$/),
      category: 'news',
    });
    expect(r.body.ads_txt_line).toBe(`ads.network.example, ${pub.id}, DIRECT`);
    const idn = await site('Bücher.example');
    expect(idn.body.domain).toBe('xn--bcher-kva.example');
  });

  it('400 for every bad field, 409 for the same domain twice, 403 for other roles', async () => {
    const bad = await call(app, 'POST', '/api/pub/sites', {
      token: pub.token,
      json: { domain: '10.0.0.1', category: 'casino', language: 'english', traffic_estimate_daily: -1 },
    });
    // The domain is named with the others, not only once they pass.
    expect(Object.keys(bad.body.errors as object).sort()).toEqual([
      'category',
      'domain',
      'language',
      'traffic_estimate_daily',
    ]);
    const badDomain = await call(app, 'POST', '/api/pub/sites', {
      token: pub.token,
      json: { domain: 'localhost', category: 'news', language: 'en', traffic_estimate_daily: 1 },
    });
    expect(badDomain.body).toEqual({ errors: { domain: 'must be a public domain name such as example.com' } });
    const d = uniq('dup');
    expect((await site(d)).status).toBe(201);
    expect((await site(`http://${d.toUpperCase()}/`)).status).toBe(409);
    expect((await site(d, other)).status).toBe(201);
    const adv = await account(app, 'advertiser');
    expect((await site(uniq('x'), adv)).status).toBe(403);
    expect((await call(app, 'GET', '/api/pub/sites')).status).toBe(401);
  });

  it('lists, reads and updates own sites only', async () => {
    const s = await site(uniq('mine'));
    expect((await call(app, 'GET', `/api/pub/sites/${s.body.id}`, { token: other.token })).status).toBe(403);
    expect((await call(app, 'GET', '/api/pub/sites/999999', { token: pub.token })).status).toBe(404);
    const up = await call(app, 'PATCH', `/api/pub/sites/${s.body.id}`, {
      token: pub.token,
      json: { category: 'sports', traffic_estimate_daily: 10 },
    });
    expect(up.body).toMatchObject({ category: 'sports', traffic_estimate_daily: 10, domain: s.body.domain });
    const list = await call<{ sites: { id: number }[] }>(app, 'GET', '/api/pub/sites', { token: pub.token });
    expect(list.body.sites.map((x) => x.id)).toContain(s.body.id);
    expect(
      (await call<{ sites: { id: number }[] }>(app, 'GET', '/api/pub/sites', { token: other.token })).body.sites.map(
        (x) => x.id,
      ),
    ).not.toContain(s.body.id);
  });
});

const UNREACHABLE = { ok: false, error: 'The site could not be reached' };

describe('verification', () => {
  const verify = (id: number, who = pub) => call(app, 'POST', `/api/pub/sites/${id}/verify`, { token: who.token });

  it('finds the meta tag (any attribute order), through redirects, or the well-known file', async () => {
    for (const prefix of ['good', 'redirect', 'file']) {
      const s = await site(uniq(prefix));
      const r = await verify(s.body.id);
      expect([prefix, r.status, r.body]).toEqual([
        prefix,
        200,
        { ok: true, method: prefix === 'file' ? 'file' : 'meta', status: 'pending_review' },
      ]);
    }
  });

  it('422 with the spec message when the code is missing, status unchanged', async () => {
    const s = await site(uniq('plain'));
    const r = await verify(s.body.id);
    expect(r.status).toBe(422);
    expect(r.body).toEqual({ ok: false, error: 'Verification code not found on the site page' });
    expect((await call(app, 'GET', `/api/pub/sites/${s.body.id}`, { token: pub.token })).body.status).toBe('draft');
  });

  it('does not read past the size limit, gives up on redirect loops and slow sites, and says so', async () => {
    expect((await verify((await site(uniq('huge'))).body.id)).body).toEqual({
      ok: false,
      error: 'Verification code not found on the site page',
    });
    const loop = await verify((await site(uniq('loop'))).body.id);
    expect(loop.status).toBe(422);
    expect(loop.body).toEqual(UNREACHABLE);
    const started = Date.now();
    const slow = await verify((await site(uniq('slow'))).body.id);
    expect(slow.status).toBe(422);
    expect(slow.body).toEqual(UNREACHABLE);
    expect(Date.now() - started).toBeLessThan(5_000);
    const down = await verify((await site('down.example')).body.id);
    expect(down.status).toBe(422);
    expect(down.body).toEqual(UNREACHABLE);
  });

  it("accepts only a page on the site's own domain or its www.: a redirect elsewhere is not followed", async () => {
    for (const prefix of ['elsewhere', 'portjump']) {
      const s = await site(uniq(prefix));
      const r = await verify(s.body.id);
      expect([prefix, r.status, r.body]).toEqual([prefix, 422, UNREACHABLE]);
      expect((await call(app, 'GET', `/api/pub/sites/${s.body.id}`, { token: pub.token })).body.status).toBe('draft');
    }
    // The other host, whose page holds the code, was never asked.
    expect(offSiteHits).toEqual([]);
  });

  it('refuses private addresses always, and loopback unless switched on for tests, with one message that names no address or port', async () => {
    const logged = vi.spyOn(app.svc.log, 'info');
    const intranet = await verify((await site('intranet.example')).body.id);
    expect(intranet.status).toBe(422);
    expect(intranet.body).toEqual(UNREACHABLE);
    // The operator's log has what the publisher is not told.
    expect(logged).toHaveBeenCalledWith(
      expect.objectContaining({
        event: 'site.verify_failed',
        reason: 'refused_address',
        detail: expect.stringContaining('10.1.2.3'),
      }),
      expect.any(String),
    );
    logged.mockRestore();
    const strict = await startApp(redis.url, {
      VERIFY_STATIC_HOSTS: '*.test=127.0.0.1',
      VERIFY_HTTP_PORT: String(sitePort),
      VERIFY_TIMEOUT_MS: '700',
    });
    try {
      const s = await site(uniq('good'));
      const r = await call(strict, 'POST', `/api/pub/sites/${s.body.id}/verify`, { token: pub.token });
      expect(r.status).toBe(422);
      expect(r.body).toEqual(UNREACHABLE);
      for (const leak of ['127.0.0.1', '10.1.2.3', String(sitePort), 'loopback', 'private', 'resolves'])
        expect(JSON.stringify([r.body, intranet.body])).not.toContain(leak);
    } finally {
      await strict.close();
    }
  });

  it('admins approve or reject; only pending sites; sellers.json lists approved publishers', async () => {
    const a = await site(uniq('good'));
    const b = await site(uniq('good'));
    expect((await call(app, 'POST', `/api/admin/sites/${a.body.id}/approve`, { token: admin.token })).status).toBe(409);
    await verify(a.body.id);
    await verify(b.body.id);
    expect((await verify(a.body.id)).status).toBe(409);
    const queue = await call<{ sites: { id: number }[] }>(app, 'GET', '/api/admin/moderation/sites', {
      token: admin.token,
    });
    expect(queue.body.sites.map((s) => s.id)).toEqual(expect.arrayContaining([a.body.id, b.body.id]));
    expect((await call(app, 'POST', `/api/admin/sites/${a.body.id}/approve`, { token: admin.token })).body.status).toBe(
      'approved',
    );
    const rej = await call(app, 'POST', `/api/admin/sites/${b.body.id}/reject`, {
      token: admin.token,
      json: { reason: 'Thin content' },
    });
    expect(rej.body).toMatchObject({ status: 'rejected', rejection_reason: 'Thin content' });
    expect((await call(app, 'POST', `/api/admin/sites/${a.body.id}/approve`, { token: pub.token })).status).toBe(403);
    const sellers = (await (await fetch(`${app.base}/sellers.json`)).json()) as {
      sellers: { seller_id: string; domain: string; seller_type: string }[];
    };
    expect(sellers.sellers).toContainEqual({
      seller_id: String(pub.id),
      name: expect.any(String),
      domain: expect.any(String),
      seller_type: 'PUBLISHER',
    });
  });
});

describe('zones', () => {
  const zone = (json: Record<string, unknown>, who = pub) =>
    call<Record<string, unknown> & { id: number; subid: string }>(app, 'POST', '/api/pub/zones', {
      token: who.token,
      json,
    });

  it('201 with subid, widget URL, and a VAST URL only for video formats', async () => {
    const s = await site(uniq('z'));
    const fv = await zone({
      site_id: s.body.id,
      name: 'Corner video',
      format: 'floating_video',
      fv_corner: 'br',
      fv_delay_sec: 5,
      fv_freq_cap_hours: 24,
    });
    expect(fv.status).toBe(201);
    expect(fv.body).toMatchObject({ status: 'active', subid: expect.stringMatching(/^[A-Za-z0-9]{12}$/) });
    expect(fv.body.widget_url).toBe(`https://ads.network.example/w/${fv.body.subid}.js`);
    expect(fv.body.vast_url).toBe(`https://ads.network.example/vast/${fv.body.subid}.xml`);
    // The same URL in each VAST version we write, for players that need 2.0 or 3.0.
    expect(fv.body.vast_urls).toEqual({
      '2.0': `https://ads.network.example/vast/${fv.body.subid}.xml?v=2`,
      '3.0': `https://ads.network.example/vast/${fv.body.subid}.xml?v=3`,
      '4.0': fv.body.vast_url,
    });
    const banner = await zone({
      site_id: s.body.id,
      name: 'Top',
      format: 'banner',
      banner_width: 728,
      banner_height: 90,
    });
    expect(banner.body).not.toHaveProperty('vast_url');
    expect(banner.body).not.toHaveProperty('vast_urls');
    expect(banner.body.subid).not.toBe(fv.body.subid);
  });

  it("400 for the fields each format needs or refuses, 403 on another publisher's site, 404 on none", async () => {
    const s = await site(uniq('z'));
    const fv = await zone({
      site_id: s.body.id,
      name: 'x',
      format: 'floating_video',
      fv_corner: 'middle',
      banner_width: 300,
    });
    // The format's rules are named with a field's own problem (fv_corner keeps its own message).
    expect(fv.body.errors).toEqual({
      fv_corner: expect.stringContaining('must be one of'),
      fv_delay_sec: 'is required for floating_video zones',
      fv_freq_cap_hours: 'is required for floating_video zones',
      banner_width: 'is only for banner zones',
    });
    const many = await zone({ site_id: 0, name: '', format: 'banner' });
    expect(Object.keys(many.body.errors as object).sort()).toEqual([
      'banner_height',
      'banner_width',
      'name',
      'site_id',
    ]);
    const fv2 = await zone({
      site_id: s.body.id,
      name: 'x',
      format: 'floating_video',
      banner_width: 300,
      banner_height: 250,
    });
    expect(Object.keys(fv2.body.errors as object).sort()).toEqual([
      'banner_height',
      'banner_width',
      'fv_corner',
      'fv_delay_sec',
      'fv_freq_cap_hours',
    ]);
    const odd = await zone({ site_id: s.body.id, name: 'x', format: 'banner', banner_width: 301, banner_height: 250 });
    expect((odd.body.errors as Record<string, string>).banner_width).toContain('300x250');
    expect((await zone({ site_id: s.body.id, name: '', format: 'hologram' })).status).toBe(400);
    expect((await zone({ site_id: s.body.id, name: 'x', format: 'native' }, other)).status).toBe(403);
    expect((await zone({ site_id: 999999, name: 'x', format: 'native' })).status).toBe(404);
  });

  it('pause, resume and update; every change is in the config change log', async () => {
    const s = await site(uniq('z'));
    const before = await readSnapshot(app.svc.redis);
    const z = await zone({ site_id: s.body.id, name: 'Native', format: 'native' });
    expect((await call(app, 'POST', `/api/pub/zones/${z.body.id}/pause`, { token: pub.token })).body.status).toBe(
      'paused',
    );
    expect((await call(app, 'POST', `/api/pub/zones/${z.body.id}/pause`, { token: other.token })).status).toBe(403);
    expect((await call(app, 'POST', `/api/pub/zones/${z.body.id}/resume`, { token: pub.token })).body.status).toBe(
      'active',
    );
    expect(
      (await call(app, 'PATCH', `/api/pub/zones/${z.body.id}`, { token: pub.token, json: { name: 'Renamed' } })).body
        .name,
    ).toBe('Renamed');
    expect(
      (await call(app, 'PATCH', `/api/pub/zones/${z.body.id}`, { token: pub.token, json: { fv_corner: 'tl' } })).status,
    ).toBe(400);
    const changes = (await readChanges(app.svc.redis, before.seq)).filter(
      (c) => c.kind === 'zone' && c.id === z.body.id,
    );
    expect(changes.map((c) => (c.value as { status: string; name: string }).status)).toEqual([
      'active',
      'paused',
      'active',
      'active',
    ]);
    const list = await call<{ zones: { id: number }[] }>(app, 'GET', '/api/pub/zones', { token: pub.token });
    expect(list.body.zones.map((x) => x.id)).toContain(z.body.id);
  });
});

describe('publisher controls', () => {
  const zone = (json: Record<string, unknown>) =>
    call<Record<string, unknown> & { id: number }>(app, 'POST', '/api/pub/zones', { token: pub.token, json });
  const patch = (what: 'sites' | 'zones', id: number, json: Record<string, unknown>) =>
    call<Record<string, unknown>>(app, 'PATCH', `/api/pub/${what}/${id}`, { token: pub.token, json });

  it('a site keeps defaults and a zone its overrides; null clears one; the change log carries them', async () => {
    const s = await site(uniq('ctl'));
    expect(s.body).toMatchObject({
      floor_cpm_usd: null,
      blocked_verticals: null,
      blocked_advertiser_domains: null,
      fallback: null,
    });
    const defaults = await patch('sites', s.body.id, {
      floor_cpm_usd: 0.5,
      blocked_verticals: ['gambling', 'dating', 'gambling'],
      blocked_advertiser_domains: ['https://WWW.Casino.example/x', 'bücher.example'],
      fallback: { type: 'url', value: 'https://house.example/ad' },
    });
    expect(defaults.body).toMatchObject({
      floor_cpm_usd: 0.5,
      blocked_verticals: ['gambling', 'dating'],
      blocked_advertiser_domains: ['casino.example', 'xn--bcher-kva.example'],
      fallback: { type: 'url', value: 'https://house.example/ad' },
    });
    const before = await readSnapshot(app.svc.redis);
    const z = await zone({
      site_id: s.body.id,
      name: 'n',
      format: 'native',
      floor_cpm_usd: 1.25,
      fallback: { type: 'html', value: '<b>Ours</b>' },
    });
    expect(z.body).toMatchObject({
      floor_cpm_usd: 1.25,
      blocked_verticals: null,
      fallback: { type: 'html', value: '<b>Ours</b>' },
    });
    const cleared = await patch('zones', z.body.id, {
      floor_cpm_usd: null,
      blocked_verticals: [],
      fallback: { type: 'none', value: '' },
    });
    expect(cleared.body).toMatchObject({
      floor_cpm_usd: null,
      blocked_verticals: [],
      fallback: { type: 'none', value: null },
      name: 'n',
    });
    // Money is stored as integer micro-cents, as the engine reads it.
    const stored = (await readChanges(app.svc.redis, before.seq))
      .filter((c) => c.kind === 'zone' && c.id === z.body.id)
      .map((c) => c.value);
    expect(stored.map((v) => (v as { floor_cpm_micro_cents: number | null }).floor_cpm_micro_cents)).toEqual([
      125_000,
      null,
    ]);
    expect((await patch('zones', z.body.id, { name: 'renamed' })).body).toMatchObject({
      name: 'renamed',
      blocked_verticals: [],
    });
  });

  it('400 names every bad control: unknown verticals, a fallback URL that is not http(s), HTML over the limit, bad domains and floors', async () => {
    const s = await site(uniq('ctl'));
    const bad = await zone({
      site_id: s.body.id,
      name: 'n',
      format: 'native',
      floor_cpm_usd: -1,
      blocked_verticals: ['gambling', 'casino'],
      blocked_advertiser_domains: ['ok.example', '10.0.0.1'],
      fallback: { type: 'url', value: 'javascript:alert(1)' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual({
      floor_cpm_usd: 'must be at least 0',
      'blocked_verticals.1': expect.stringMatching(/^must be one of: gambling, betting, /),
      'blocked_advertiser_domains.1': 'must be a domain name such as example.com',
      'fallback.value': 'must be an absolute http(s) URL',
    });
    const big = await patch('sites', s.body.id, {
      fallback: { type: 'html', value: 'x'.repeat(16_385) },
      floor_cpm_usd: 0.123456,
    });
    expect(big.body.errors).toEqual({
      'fallback.value': 'must be at most 16384 bytes',
      floor_cpm_usd: 'must have at most 5 decimal places',
    });
    expect((await patch('sites', s.body.id, { fallback: { type: 'html' } })).body.errors).toEqual({
      'fallback.value': 'is required for an html fallback',
    });
    expect((await patch('sites', s.body.id, { fallback: { type: 'iframe', value: 'x' } })).body.errors).toEqual({
      'fallback.type': 'must be one of: html, url, none',
    });
    const many = Array.from({ length: 1001 }, (_, i) => `d${i}.example`);
    expect((await patch('sites', s.body.id, { blocked_advertiser_domains: many })).body.errors).toEqual({
      blocked_advertiser_domains: 'must have at most 1000 entries',
    });
  });
});
