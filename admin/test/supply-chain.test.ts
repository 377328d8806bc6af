import { createServer } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, startApp } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { freePort, startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';

// ads.txt and sellers.json (docs/demand.md, supply chain): the check of a site's /ads.txt for its line, against a
// local web server standing in for publishers' sites (chosen by Host header, as in publisher.test.ts), and the
// confidential listing in sellers.json.
let siteServer: Server;
let redis: TestRedis;
let app: TestApp;
let pub: Account;
let admin: Account;
const ourLine = () => `ads.network.example, ${pub.id}, DIRECT`;

beforeAll(async () => {
  siteServer = createServer((req, res) => {
    const host = (req.headers.host ?? '').split(':')[0] ?? '';
    if (req.url !== '/ads.txt') return void res.writeHead(404).end();
    if (host.startsWith('listed'))
      return void res.end(`# ads.txt\nother.example, 7, RESELLER\n${ourLine().toUpperCase()} # us\n`);
    if (host.startsWith('unlisted')) return void res.end('other.example, 7, DIRECT\n');
    if (host.startsWith('www.moved')) return void res.end(`${ourLine()}\n`);
    if (host.startsWith('moved'))
      return void res.writeHead(301, { location: `http://www.${req.headers.host}/ads.txt` }).end();
    res.writeHead(404).end('not found');
  });
  await new Promise<void>((r) => siteServer.listen(0, '127.0.0.1', r));
  redis = await startRedis();
  app = await startApp(redis.url, {
    VERIFY_ALLOW_LOOPBACK: 'true',
    VERIFY_STATIC_HOSTS: '*.test=127.0.0.1,intranet.example=10.1.2.3',
    VERIFY_HTTP_PORT: String((siteServer.address() as AddressInfo).port),
    // Nothing listens here: https fails and the check falls back to http, as for a plain-http site.
    VERIFY_HTTPS_PORT: String(await freePort()),
    VERIFY_TIMEOUT_MS: '700',
    PUBLIC_BASE_URL: 'https://ads.network.example',
  });
  [pub, admin] = await Promise.all([account(app, 'publisher'), account(app, 'admin')]);
});
afterAll(async () => {
  await app.close();
  await redis.stop();
  siteServer.closeAllConnections();
  siteServer.close();
});

let n = 0;
async function site(domain: string): Promise<number> {
  const r = await call<{ id: number; ads_txt_status: unknown; ads_txt_checked_at: unknown }>(
    app,
    'POST',
    '/api/pub/sites',
    { token: pub.token, json: { domain, category: 'news', language: 'en', traffic_estimate_daily: 5000 } },
  );
  expect(r.status).toBe(201);
  expect(r.body).toMatchObject({ ads_txt_status: null, ads_txt_checked_at: null });
  return r.body.id;
}
const check = (id: number, token = pub.token) =>
  call<{ ads_txt_status: string; ads_txt_checked_at: string; ads_txt_line: string }>(
    app,
    'POST',
    `/api/pub/sites/${id}/ads-txt-check`,
    { token },
  );

describe('the ads.txt check', () => {
  it("finds the site's line (any case, comments), says missing when the file lacks it or is a 404, and keeps the result", async () => {
    const listed = await check(await site(`listed-${++n}.test`));
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ ads_txt_status: 'found', ads_txt_line: ourLine() });
    expect(Date.parse(listed.body.ads_txt_checked_at)).toBeGreaterThan(Date.now() - 60_000);
    const unlisted = await site(`unlisted-${++n}.test`);
    expect((await check(unlisted)).body.ads_txt_status).toBe('missing');
    expect((await check(await site(`nofile-${++n}.test`))).body.ads_txt_status).toBe('missing');
    const kept = await call<{ ads_txt_status: string }>(app, 'GET', `/api/pub/sites/${unlisted}`, { token: pub.token });
    expect(kept.body.ads_txt_status).toBe('missing');
  });

  it("follows a redirect to the site's www.", async () => {
    expect((await check(await site(`moved-${++n}.test`))).body.ads_txt_status).toBe('found');
  });

  it('refuses a private address: unreachable, naming no address', async () => {
    const r = await check(await site('intranet.example'));
    expect(r.status).toBe(200);
    expect(r.body.ads_txt_status).toBe('unreachable');
    expect(JSON.stringify(r.body)).not.toContain('10.1.2.3');
  });

  it("checks only the publisher's own sites", async () => {
    const id = await site(`listed-${++n}.test`);
    const other = await account(app, 'publisher');
    expect((await check(id, other.token)).status).toBe(403);
  });
});

describe('sellers.json', () => {
  it('lists a confidential publisher with is_confidential 1 and without name or domain', async () => {
    const settings = await call<Record<string, unknown>>(app, 'GET', '/api/pub/seller-settings', { token: pub.token });
    expect(settings.body).toEqual({
      seller_id: String(pub.id),
      sellers_json_confidential: false,
      ads_txt_line: ourLine(),
    });
    const id = await site(`listed-${++n}.test`);
    await app.svc.configStore.update<{ status: string }>(
      'site',
      id,
      (s) => ({ value: { ...s, status: 'pending_review' } }),
      () => new Error('no site'),
    );
    expect((await call(app, 'POST', `/api/admin/sites/${id}/approve`, { token: admin.token })).status).toBe(200);
    const sellers = async () =>
      ((await (await fetch(`${app.base}/sellers.json`)).json()) as { sellers: Record<string, unknown>[] }).sellers.find(
        (s) => s.seller_id === String(pub.id),
      );
    expect(await sellers()).toMatchObject({ name: expect.any(String), domain: expect.any(String) });

    const put = await call(app, 'PUT', '/api/pub/seller-settings', {
      token: pub.token,
      json: { sellers_json_confidential: true },
    });
    expect(put.body).toMatchObject({ sellers_json_confidential: true });
    expect(await sellers()).toEqual({ seller_id: String(pub.id), is_confidential: 1, seller_type: 'PUBLISHER' });

    await call(app, 'PUT', '/api/pub/seller-settings', {
      token: pub.token,
      json: { sellers_json_confidential: false },
    });
    expect(await sellers()).toMatchObject({ name: expect.any(String), seller_type: 'PUBLISHER' });
    const bad = await call(app, 'PUT', '/api/pub/seller-settings', {
      token: pub.token,
      json: { sellers_json_confidential: 'yes' },
    });
    expect(bad.status).toBe(400);
    expect((await call(app, 'GET', '/api/pub/seller-settings', { token: admin.token })).status).toBe(403);
  });
});
