import { createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import { join } from 'node:path';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createLogger } from '@adnet/admin/log';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConversionStore } from '@adnet/admin/conversion-store';
import { PostbackWorker } from '@adnet/admin/postback-worker';
import { startApp, uniqueEmail } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { eventually, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { ensurePrivateRedis } from '@adnet/launcher/private-redis';
import type { RedisTarget } from '@adnet/launcher/private-redis';
import { linkToken, parseMail } from '@adnet/test-support/smtp';
import { World } from '@adnet/test-support/world';

// A whole scenario through the real admin and engine, both logging at trace level into one capture;
// then every secret the scenario used is looked for in everything logged.
const lines: string[] = [];
const sink = { write: (s: string) => void lines.push(s) };
const secrets = new Set<string>();
const keep = <T extends string>(s: T): T => (secrets.add(s), s);

const TRACKING_SECRET = keep(randomBytes(30).toString('base64url'));
const TRACKER_TOKEN = keep(`trk-${randomBytes(12).toString('hex')}`);
const UA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14_0) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Safari/605.1.15';

/** `pnpm start`'s own Redis, with its generated password: the admin and the engine log in with it. */
let redis: RedisTarget;
let redisDir = '';
let app: TestApp;
let engine: TestEngine;
let tracker: Server;
let trackerBase = '';
const hits: string[] = [];

beforeAll(async () => {
  tracker = createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(200).end('ok');
  });
  await new Promise<void>((r) => tracker.listen(0, '127.0.0.1', r));
  trackerBase = `http://127.0.0.1:${(tracker.address() as AddressInfo).port}`;
  redisDir = mkdtempSync(join(tmpdir(), 'adnet-log-secrets-'));
  redis = await ensurePrivateRedis(redisDir);
  keep(new URL(redis.url).password);
  app = await startApp(
    redis.url,
    { LOG_LEVEL: 'trace', POSTBACK_ALLOW_LOOPBACK: 'true' },
    { log: createLogger('trace', 'adnet', sink) },
  );
  engine = await startEngine(
    redis.url,
    { LOG_LEVEL: 'trace', TRACKING_SECRET },
    { adminUpstream: app.base, log: createLogger('trace', 'engine', sink) },
  );
}, 60_000);
afterAll(async () => {
  await engine?.stop();
  await app?.close();
  await redis?.stop();
  rmSync(redisDir, { recursive: true, force: true });
  tracker?.close();
});

/** Through the engine's public port, as users reach the product. */
async function api<T = Record<string, unknown>>(
  method: string,
  path: string,
  opts: { token?: string; json?: unknown; form?: URLSearchParams; headers?: Record<string, string> } = {},
) {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = opts.form.toString();
  }
  const res = await fetch(engine.base + path, { method, headers, body, redirect: 'manual' });
  const text = await res.text();
  return {
    status: res.status,
    body: (text && (res.headers.get('content-type') ?? '').includes('json') ? JSON.parse(text) : text) as T,
  };
}

const sign = (key: string, f: Record<'click_id' | 'payout' | 'status' | 'txid', string>) =>
  keep(createHmac('sha256', key).update(`${f.click_id}|${f.payout}|${f.status}|${f.txid}`).digest('hex'));

const keepToken = (token: string): string => {
  keep(token);
  keep(token.split('|')[1] ?? token);
  return token;
};

describe('nothing secret reaches the logs', () => {
  it('a full scenario: sign-up, email verification, sign-in, campaign, a click, signed postbacks, password change, failures', async () => {
    const email = uniqueEmail('logged');
    const password = keep('first-Passw0rd-xyz');
    expect((await api('POST', '/api/auth/register', { json: { email, password, role: 'advertiser' } })).status).toBe(
      202,
    );
    expect(
      (await api('POST', '/api/auth/token', { json: { email, password: keep('wrong-Passw0rd-xyz') } })).status,
    ).toBe(401);
    const token = keepToken(
      (await api<{ token: string }>('POST', '/api/auth/token', { json: { email, password } })).body.token,
    );
    const me = await api<{ result: { data: { id: number } } }>('GET', '/trpc/auth.me', { token });
    expect(me.status).toBe(200);
    const adv: Account = { id: me.body.result.data.id, email, token };
    // The cabinet's sign-in through the engine's proxy: its token travels in Set-Cookie, then in Cookie.
    const cabinet = { 'x-adnet-cabinet': '1', 'sec-fetch-site': 'same-origin' };
    const session = await fetch(`${engine.base}/trpc/auth.session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...cabinet },
      body: JSON.stringify({ email, password }),
    });
    expect(session.status).toBe(200);
    const cookie = session.headers.getSetCookie()[0]?.split(';')[0] ?? '';
    keepToken(cookie.slice('adnet_session='.length));
    expect((await api('GET', '/trpc/auth.me', { headers: { ...cabinet, cookie } })).status).toBe(200);
    expect((await api('POST', '/trpc/auth.logout', { headers: { ...cabinet, cookie }, json: {} })).status).toBe(200);

    const world = await World.create(app);
    keep('password-123');
    keepToken(world.admin.token);
    await api('POST', `/api/admin/advertisers/${adv.id}/credit`, {
      token: world.admin.token,
      json: { amount_cents: 100_000 },
    });
    await world.campaign(adv, { format: 'native', vertical: 'dating', bid_usd: 2 });
    const secret = keep(
      (await api<{ postback_secret: string }>('GET', '/api/adv/profile', { token })).body.postback_secret,
    );
    const pattern = `${trackerBase}/pb?token=${TRACKER_TOKEN}&cid={click_id}`;
    expect((await api('PATCH', '/api/adv/profile', { token, json: { postback_url: pattern } })).status).toBe(200);

    const site = await world.site();
    keepToken(site.publisher.token);
    const zone = await world.zone({ format: 'native' }, site);
    await eventually(
      () =>
        engine.engine.mirror.index?.zones.get(zone.subid)?.serving === true &&
        engine.engine.mirror.index.candidateCount === 1,
    );
    const served = (await (
      await fetch(`${engine.base}/imp?z=${zone.subid}&fp=fingerprint-1`, {
        headers: { 'user-agent': UA, 'x-country': 'FR' },
      })
    ).json()) as {
      beacon_url: string;
      click_url: string;
    };
    expect((await fetch(served.beacon_url, { headers: { 'user-agent': UA } })).status).toBe(200);
    const click = await fetch(`${served.click_url}?ttc=2000&x=5&y=5&focus=1&fp=fingerprint-1`, {
      redirect: 'manual',
      headers: { 'user-agent': UA },
    });
    const clickId = /c=([0-9a-f-]{36})/.exec(click.headers.get('location') ?? '')?.[1] ?? '';
    expect(clickId).not.toBe('');

    // The postback as form fields, as headers and as a GET query, each signed.
    const asForm = { click_id: clickId, payout: '1500', status: 'pending', txid: 'T-1' };
    expect(
      (
        await api('POST', '/postback/in', {
          form: new URLSearchParams({ ...asForm, secret, sig: sign(secret, asForm) }),
        })
      ).status,
    ).toBe(200);
    const asHeaders = { ...asForm, status: 'approved' };
    const headers = { 'x-service-secret': secret, 'x-service-signature': sign(secret, asHeaders) };
    expect((await api('POST', '/postback/in', { form: new URLSearchParams(asHeaders), headers })).status).toBe(200);
    const asQuery = { ...asForm, txid: 'T-2', status: 'approved' };
    expect(
      (
        await api(
          'GET',
          `/postback/in?${new URLSearchParams({ ...asQuery, secret, sig: sign(secret, asQuery) }).toString()}`,
        )
      ).status,
    ).toBe(200);
    await new PostbackWorker({
      svc: app.svc,
      store: new ConversionStore(app.svc.redis),
      now: () => Date.now() + 6_000,
    }).runOnce(); // the first attempt is due 5 s after the conversion
    expect(hits.some((h) => h.includes(TRACKER_TOKEN))).toBe(true);

    const rotated = keep(
      (await api<{ postback_secret: string }>('POST', '/api/adv/profile/postback-secret/rotate', { token })).body
        .postback_secret,
    );
    const changed = await api('POST', '/api/auth/password', {
      token,
      json: { current_password: password, new_password: keep('second-Passw0rd-xyz') },
    });
    expect(changed.status).toBe(200);
    const second = keepToken(
      (await api<{ token: string }>('POST', '/api/auth/token', { json: { email, password: 'second-Passw0rd-xyz' } }))
        .body.token,
    );
    expect((await api('POST', '/api/auth/logout-all', { token: second })).status).toBe(200);
    expect((await api('GET', '/api/auth/me', { token: second })).status).toBe(401);

    // An API key, used; then a password reset through the emailed link (written to DATA_DIR/outbox without SMTP).
    const third = keepToken(
      (await api<{ token: string }>('POST', '/api/auth/token', { json: { email, password: 'second-Passw0rd-xyz' } }))
        .body.token,
    );
    const apiKey = keep(
      (await api<{ key: string }>('POST', '/api/keys', { token: third, json: { name: 'ci', scopes: ['read'] } })).body
        .key,
    );
    keep(apiKey.slice(-43));
    expect((await api('GET', '/api/adv/campaigns', { token: apiKey })).status).toBe(200);
    // The verification link sign-up sent (written to DATA_DIR/outbox without SMTP), followed.
    await app.admin.mail.worker.runOnce();
    const outbox = join(app.svc.config.storage.dataDir, 'outbox');
    const mails = () => readdirSync(outbox).map((f) => readFileSync(join(outbox, f), 'utf8'));
    const verifyMail = mails().find((m) => m.includes('verify-email#token=') && m.includes(email));
    const verifyToken = keep(linkToken(parseMail(verifyMail ?? ''), 'verify-email'));
    expect((await api('POST', '/api/auth/verify-email', { json: { token: verifyToken } })).status).toBe(200);
    expect((await api<{ email_verified: boolean }>('GET', '/api/auth/me', { token: apiKey })).body.email_verified).toBe(
      true,
    );
    expect((await api('POST', '/api/auth/password-reset', { json: { email } })).status).toBe(202);
    await app.admin.mail.worker.runOnce();
    const resetMail = mails().find((m) => m.includes('reset-password#token=') && m.includes(email));
    const resetToken = keep(linkToken(parseMail(resetMail ?? ''), 'reset-password'));
    const reset = await api('POST', '/api/auth/password-reset/confirm', {
      json: { token: resetToken, password: keep('third-Passw0rd-xyz') },
    });
    expect(reset.status).toBe(200);
    expect((await api('GET', '/api/adv/campaigns', { token: apiKey })).status).toBe(401);

    // Failures log their details: a driver error that carries the secret it was asked about.
    await app.svc.redis.set('{users}:pbsecret', 'not a hash');
    const failed = { ...asForm, txid: 'T-3' };
    expect(
      (
        await api('POST', '/postback/in', {
          form: new URLSearchParams({ ...failed, secret: rotated, sig: sign(rotated, failed) }),
        })
      ).status,
    ).toBe(500);
    // The same through tRPC, whose failure log holds the driver's error itself, with the command's arguments.
    expect(
      (
        await api('POST', '/trpc/conversions.receive', {
          json: { ...failed, secret: rotated, sig: sign(rotated, failed) },
        })
      ).status,
    ).toBe(500);
    await app.svc.redis.del('{users}:pbsecret');

    const logged = lines.join('');
    // The capture holds the scenario: every request, and the failure with its driver message.
    expect(lines.filter((l) => l.includes('"msg":"request"')).length).toBeGreaterThan(20);
    expect(logged).toMatch(/WRONGTYPE/);
    expect(secrets.size).toBeGreaterThan(17);
    for (const s of secrets) expect(logged.includes(s), `logged: ${s}`).toBe(false);
  }, 60_000);
});
