import { lowBalanceWatch } from '../src/mail/low-balance-watch.ts';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, call, creativeForm, startApp, uniqueEmail, validCampaign } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import { makePng } from '@adnet/test-support/images';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { linkToken, parseMail, startSmtp } from '@adnet/test-support/smtp';
import type { ReceivedMail, TestSmtp } from '@adnet/test-support/smtp';
import { createLogger } from '../src/log.ts';
import { AdminMetrics } from '../src/observability/admin-metrics.ts';
import { MailWorker, mailRetryDelayMs } from '../src/mail/mail-worker.ts';
import { workerPorts } from '../src/wiring/ports.ts';
import { moderationWaitText } from '@adnet/schemas/moderation-wait';
import { createHash } from 'node:crypto';
import type { StoredSite } from '@adnet/schemas/publisher';

let redis: TestRedis;
let smtp: TestSmtp;
let app: TestApp;

beforeAll(async () => {
  redis = await startRedis();
  smtp = await startSmtp();
  app = await startApp(redis.url, {
    SMTP_URL: smtp.url,
    MAIL_FROM: 'Ads <ads@example.test>',
    PUBLIC_BASE_URL: 'https://ads.example.test',
  });
});
afterAll(async () => {
  await app?.close();
  await smtp?.close();
  await redis?.stop();
});

/** Sends what is queued, as the worker's next pass would. */
const deliver = () => app.admin.mail.worker.runOnce();
const mailTo = (email: string, subject: RegExp) => smtp.waitFor((m) => m.to.includes(email) && subject.test(m.subject));
const mailsTo = (email: string) => smtp.received.filter((m) => m.to.includes(email));

async function register(email: string, password = 'first-pass-1'): Promise<void> {
  const r = await call(app, 'POST', '/api/auth/register', { json: { email, password, role: 'advertiser' } });
  expect(r.status).toBe(202);
}

async function signIn(email: string, password: string) {
  return call<{ token: string }>(app, 'POST', '/api/auth/token', { json: { email, password } });
}

async function resetLink(email: string): Promise<string> {
  const before = mailsTo(email).length;
  expect((await call(app, 'POST', '/api/auth/password-reset', { json: { email } })).status).toBe(202);
  await deliver();
  const mail = await smtp.waitFor(
    (m) => m.to.includes(email) && /Reset your password/.test(m.subject) && mailsTo(email).indexOf(m) >= before,
  );
  return linkToken(mail, 'reset-password');
}

describe('email verification at sign-up', () => {
  it('mails a single-use link over SMTP that marks the address verified', async () => {
    const email = uniqueEmail('verify');
    await register(email);
    await deliver();
    const mail = await mailTo(email, /Confirm your email/);
    expect(mail.from).toBe('ads@example.test');
    expect(mail.raw).toMatch(/^From: Ads <ads@example\.test>/m);
    expect(mail.text).toContain('https://ads.example.test/cabinet/verify-email#token=');
    const token = linkToken(mail, 'verify-email');
    const { body: session } = await signIn(email, 'first-pass-1');
    expect((await call(app, 'GET', '/api/auth/me', { token: session.token })).body).toMatchObject({
      email,
      email_verified: false,
    });

    expect(await call(app, 'POST', '/api/auth/verify-email', { json: { token } })).toMatchObject({
      status: 200,
      body: { ok: true },
    });
    expect((await call(app, 'GET', '/api/auth/me', { token: session.token })).body).toMatchObject({
      email_verified: true,
    });
    // Used once; forged or malformed tokens the same.
    for (const bad of [token, 'A'.repeat(43), '../../etc', 42]) {
      const again = await call(app, 'POST', '/api/auth/verify-email', { json: { token: bad } });
      expect([again.status, Object.keys((again.body as { errors: object }).errors)]).toEqual([400, ['token']]);
    }
    expect((await call(app, 'POST', '/api/auth/verify-email', { json: {} })).body).toEqual({
      errors: { token: 'is required' },
    });
  });

  it('answers a taken email as a new one, and tells the owner instead', async () => {
    const email = uniqueEmail('taken');
    const first = await call(app, 'POST', '/api/auth/register', {
      json: { email, password: 'first-pass-1', role: 'advertiser' },
    });
    const again = await call(app, 'POST', '/api/auth/register', {
      json: { email, password: 'other-pass-1', role: 'publisher' },
    });
    expect([again.status, again.body, again.headers.get('content-length')]).toEqual([
      first.status,
      first.body,
      first.headers.get('content-length'),
    ]);
    await deliver();
    await mailTo(email, /Someone tried to sign up/);
    expect(
      mailsTo(email)
        .map((m) => m.subject)
        .sort(),
    ).toEqual(['Confirm your email address', 'Someone tried to sign up with your email']);
  });
});

describe('password reset', () => {
  it('resets with the emailed link, revokes every session and API key, and the link works once', async () => {
    const email = uniqueEmail('reset');
    await register(email);
    const { body: s1 } = await signIn(email, 'first-pass-1');
    const { body: s2 } = await signIn(email, 'first-pass-1');
    const key = await call<{ key: string }>(app, 'POST', '/api/keys', {
      token: s1.token,
      json: { name: 'ci', scopes: ['read'] },
    });
    expect(key.status).toBe(201);

    const token = await resetLink(email);
    const mail = mailsTo(email).find((m) => /Reset/.test(m.subject)) as ReceivedMail;
    expect(mail.text).toMatch(/valid 1 hour, once/);
    const ok = await call(app, 'POST', '/api/auth/password-reset/confirm', {
      json: { token, password: 'second-pass-2' },
    });
    expect([ok.status, ok.body]).toEqual([200, { ok: true }]);

    for (const t of [s1.token, s2.token, key.body.key])
      expect((await call(app, 'GET', '/api/auth/me', { token: t })).status).toBe(401);
    expect((await signIn(email, 'first-pass-1')).status).toBe(401);
    const fresh = await signIn(email, 'second-pass-2');
    expect(fresh.status).toBe(200);
    expect((await call(app, 'GET', '/api/auth/me', { token: fresh.body.token })).body).toMatchObject({
      email_verified: true,
    });

    const reuse = await call(app, 'POST', '/api/auth/password-reset/confirm', {
      json: { token, password: 'third-pass-3' },
    });
    expect([reuse.status, reuse.body]).toEqual([400, { errors: { token: 'is invalid or expired' } }]);
    expect((await signIn(email, 'third-pass-3')).status).toBe(401);
    await deliver();
    await mailTo(email, /Your password was changed/);
  });

  it('lets exactly one of many simultaneous uses of one link through', async () => {
    const email = uniqueEmail('race');
    await register(email);
    const token = await resetLink(email);
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(app, 'POST', '/api/auth/password-reset/confirm', { json: { token, password: `racing-pass-${i}` } }),
      ),
    );
    expect(replies.map((r) => r.status).sort()).toEqual([200, 400, 400, 400, 400, 400, 400, 400]);
  });

  it('refuses an expired link, a forged one, and one made before the password changed', async () => {
    const email = uniqueEmail('expire');
    await register(email);
    const expired = await resetLink(email);
    // Its record as it will look an hour on: the stored expiry passed (only the token's sha256 is stored).
    const key = `ott:reset:${createHash('sha256').update(expired).digest('hex')}`;
    const [uid, , bind] = ((await app.svc.redis.get(key)) as string).split('|');
    await app.svc.redis.set(key, `${uid}|${Date.now() - 1}|${bind}`, 'PX', 60_000);
    const late = await call(app, 'POST', '/api/auth/password-reset/confirm', {
      json: { token: expired, password: 'second-pass-2' },
    });
    expect([late.status, late.body]).toEqual([400, { errors: { token: 'is invalid or expired' } }]);
    expect(await app.svc.redis.exists(key)).toBe(0);

    const forged = await call(app, 'POST', '/api/auth/password-reset/confirm', {
      json: { token: expired.replace(/.$/, (c) => (c === 'A' ? 'B' : 'A')), password: 'x-pass-123' },
    });
    expect(forged.body).toEqual({ errors: { token: 'is invalid or expired' } });

    const stale = await resetLink(email);
    const { body: s } = await signIn(email, 'first-pass-1');
    const changed = await call(app, 'POST', '/api/auth/password', {
      token: s.token,
      json: { current_password: 'first-pass-1', new_password: 'changed-pass-1' },
    });
    expect(changed.status).toBe(200);
    const after = await call(app, 'POST', '/api/auth/password-reset/confirm', {
      json: { token: stale, password: 'second-pass-2' },
    });
    expect(after.body).toEqual({ errors: { token: 'is invalid or expired' } });
    expect((await signIn(email, 'changed-pass-1')).status).toBe(200);
  });

  it('names the bad fields', async () => {
    const r = await call(app, 'POST', '/api/auth/password-reset/confirm', {
      json: { token: 'x'.repeat(43), password: 'short' },
    });
    expect([r.status, Object.keys((r.body as { errors: object }).errors)]).toEqual([400, ['password']]);
    const e = await call(app, 'POST', '/api/auth/password-reset', { json: { email: 'not-an-email' } });
    expect([e.status, Object.keys((e.body as { errors: object }).errors)]).toEqual([400, ['email']]);
    const none = await call(app, 'POST', '/api/auth/password-reset/confirm', { json: {} });
    expect(none.body).toEqual({ errors: { token: 'is required', password: 'is required' } });
  });

  it('answers an unknown email exactly as a known one, in about the same time, and mails nothing', async () => {
    const known = uniqueEmail('known');
    await register(known);
    await deliver();
    const unknown = uniqueEmail('nobody');
    const time = async (email: string) => {
      const t = performance.now();
      const r = await call(app, 'POST', '/api/auth/password-reset', { json: { email } });
      return { ms: performance.now() - t, status: r.status, body: r.body, length: r.headers.get('content-length') };
    };
    const a = await time(known);
    const b = await time(unknown);
    expect([b.status, b.body, b.length]).toEqual([a.status, a.body, a.length]);
    expect([a.status, a.body]).toEqual([202, { ok: true }]);
    // Both only queue a notice: no hashing, no lookup in the request. The fastest of a few tries stay close.
    const fastest = async (email: string) => {
      const ms: number[] = [];
      for (let i = 0; i < 2; i++) ms.push((await time(email)).ms);
      return ms.sort((x, y) => x - y)[0] as number;
    };
    expect(Math.abs((await fastest(known)) - (await fastest(`x${unknown}`)))).toBeLessThan(50);
    const before = smtp.received.length;
    await deliver();
    expect(smtp.received.slice(before).filter((m) => m.to.some((t) => t.includes('nobody')))).toEqual([]);
    expect(await app.svc.mailQueue.depth()).toBe(0);
  });

  it('sends at most 3 reset emails per address per hour, answering 202 throughout', async () => {
    const email = uniqueEmail('flood');
    await register(email);
    for (let i = 0; i < 5; i++)
      expect((await call(app, 'POST', '/api/auth/password-reset', { json: { email } })).status).toBe(202);
    await deliver();
    expect(mailsTo(email).filter((m) => /Reset/.test(m.subject))).toHaveLength(3);
  });
});

describe('the outbox queue', () => {
  it('keeps a notice through an SMTP outage and sends it once the server answers', async () => {
    let now = 0;
    const worker = new MailWorker({
      svc: workerPorts(app.svc).mail,
      queue: app.svc.mailQueue,
      transport: app.admin.mail.transport,
      now: () => now,
    });
    const user = await account(app, 'publisher');
    smtp.failing = true;
    await app.svc.notifier.notify({
      kind: 'payout_paid',
      user_id: user.id,
      payout_id: 7,
      amount_cents: 12_345,
      reference: 'WIRE-42',
    });
    now = Date.now();
    try {
      await worker.runOnce();
    } finally {
      smtp.failing = false;
    }
    expect(worker.counts).toMatchObject({ sent: 0, retried: 1 });
    expect(await app.svc.mailQueue.depth()).toBe(1);
    await worker.runOnce(); // not due yet
    expect(worker.counts.sent).toBe(0);
    now += mailRetryDelayMs(1);
    await worker.runOnce();
    expect(worker.counts.sent).toBe(1);
    const mail = await mailTo(user.email, /Payout sent: \$123\.45/);
    expect(mail.text).toContain('Reference: WIRE-42');
    expect(await app.svc.mailQueue.depth()).toBe(0);
    // What operators watch: the queue's depth and the worker's counts.
    const metrics = new AdminMetrics();
    metrics.watch({
      eventStream: () => Promise.resolve({ length: 0, lag: 0, pending: 0 }),
      postbackQueue: () => Promise.resolve(0),
      mailQueue: () => app.svc.mailQueue.depth(),
      mail: () => worker.counts,
    });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^adnet_admin_mail_queue 0$/m);
    expect(text).toMatch(/^adnet_admin_mail_sent_total 1$/m);
    expect(text).toMatch(/^adnet_admin_mail_retried_total 1$/m);
  });

  it('queues one notice per once-key, however many ask', async () => {
    const user = await account(app, 'advertiser');
    const notice = { kind: 'postback_failing', user_id: user.id, campaign_id: 99, conversion_id: 1 } as const;
    const queued = await Promise.all(
      Array.from({ length: 5 }, () =>
        app.svc.notifier.notify(notice, { once: { key: `pbfail:99:${user.id}`, ttlMs: 86_400_000 } }),
      ),
    );
    expect(queued.filter(Boolean)).toHaveLength(1);
    await deliver();
    expect(mailsTo(user.email).filter((m) => /Postbacks failing/.test(m.subject))).toHaveLength(1);
  });
});

describe('notices of moderation and low balance', () => {
  it('tells the advertiser of each creative verdict, with the reason', async () => {
    const adv = await account(app, 'advertiser');
    const admin = await account(app, 'admin');
    const { body: c } = await call<{ id: number }>(app, 'POST', '/api/adv/campaigns', {
      token: adv.token,
      json: validCampaign,
    });
    const fields = {
      title: 'Spin to win',
      body: 'Now',
      landing_url: 'https://example.com/?c={click_id}',
      cta_text: 'Play',
    };
    const up = () =>
      call<{ id: number }>(app, 'POST', `/api/adv/campaigns/${c.id}/creatives`, {
        token: adv.token,
        form: creativeForm(fields, { data: makePng(200, 200, Math.random()), name: 'a.png', type: 'image/png' }),
      });
    const [one, two] = [(await up()).body.id, (await up()).body.id];
    expect((await call(app, 'POST', `/api/admin/creatives/${one}/approve`, { token: admin.token })).status).toBe(200);
    expect(
      (
        await call(app, 'POST', `/api/admin/creatives/${two}/reject`, {
          token: admin.token,
          json: { reason: 'Misleading claim' },
        })
      ).status,
    ).toBe(200);
    await deliver();
    await mailTo(adv.email, /Creative approved: Spin to win/);
    const rejected = await mailTo(adv.email, /Creative rejected/);
    expect(rejected.text).toContain('Reason: Misleading claim');
    // The wait it quotes is the one the cabinet shows (auth.me), from the same settings and queue.
    const me = await call<{ moderation_eta_seconds: number }>(app, 'GET', '/api/auth/me', { token: adv.token });
    expect(me.body.moderation_eta_seconds).toBe(app.svc.config.admin.moderationEtaBaseSeconds);
    expect(rejected.text).toContain(`again (review takes ${moderationWaitText(me.body.moderation_eta_seconds)}):`);
  });

  it('tells the publisher of each site verdict, with the reason', async () => {
    const pub = await account(app, 'publisher');
    const admin = await account(app, 'admin');
    const review = async (domain: string) => {
      const site = await call<{ id: number }>(app, 'POST', '/api/pub/sites', {
        token: pub.token,
        json: { domain, category: 'news', language: 'en', traffic_estimate_daily: 1000 },
      });
      // Verification is site-verifier's subject: the site is put in the review queue directly.
      await app.svc.configStore.update<StoredSite>(
        'site',
        site.body.id,
        (s) => ({ value: { ...s, status: 'pending_review' } }),
        () => new Error('no site'),
      );
      return site.body.id;
    };
    const ok = await review(`ok-${pub.id}.example`);
    const no = await review(`no-${pub.id}.example`);
    expect((await call(app, 'POST', `/api/admin/sites/${ok}/approve`, { token: admin.token })).status).toBe(200);
    expect(
      (
        await call(app, 'POST', `/api/admin/sites/${no}/reject`, {
          token: admin.token,
          json: { reason: 'Copied content' },
        })
      ).status,
    ).toBe(200);
    await deliver();
    await mailTo(pub.email, new RegExp(`Site approved: ok-${pub.id}\\.example`));
    expect((await mailTo(pub.email, /Site rejected/)).text).toContain('Reason: Copied content');
  });

  it('mails a low balance once per crossing of the advertiser’s threshold', async () => {
    const adv = await account(app, 'advertiser');
    const set = await call(app, 'PUT', '/api/adv/notifications', { token: adv.token, json: { low_balance_usd: 10 } });
    expect([set.status, set.body]).toEqual([200, { low_balance_usd: 10 }]);
    expect((await call(app, 'GET', '/api/adv/notifications', { token: adv.token })).body).toEqual({
      low_balance_usd: 10,
    });
    const watch = () => app.admin.mail.lowBalance.runOnce().then(deliver);
    const lows = () => mailsTo(adv.email).filter((m) => /Low balance/.test(m.subject));

    await app.svc.ledger.credit(adv.id, 2_000, 'test');
    await watch();
    expect(lows()).toHaveLength(0);
    await app.svc.ledger.debit(adv.id, 1_100, 'spend', false); // $9.00
    // Two admin processes (two watches) look at the same crossing at once: one notice between them.
    const other = lowBalanceWatch(app.svc);
    await Promise.all([
      app.admin.mail.lowBalance.runOnce(),
      other.runOnce(),
      other.runOnce(),
      app.admin.mail.lowBalance.runOnce(),
    ]);
    await watch();
    await app.svc.ledger.debit(adv.id, 500, 'spend', false); // $4.00, still below: nothing more
    await watch();
    await watch();
    expect(lows().map((m) => m.subject)).toEqual(['Low balance: $9.00']);
    await app.svc.ledger.credit(adv.id, 5_000, 'top-up'); // $54.00: re-armed
    await watch();
    await app.svc.ledger.debit(adv.id, 4_500, 'spend', false); // $9.00 again
    await watch();
    expect(lows()).toHaveLength(2);

    expect(
      (await call(app, 'PUT', '/api/adv/notifications', { token: adv.token, json: { low_balance_usd: null } })).status,
    ).toBe(200);
    await app.svc.ledger.credit(adv.id, 5_000, 'top-up');
    await app.svc.ledger.debit(adv.id, 5_800, 'spend', false);
    await watch();
    expect(lows()).toHaveLength(2);
  });

  it('refuses a bad threshold naming the field, and other roles', async () => {
    const adv = await account(app, 'advertiser');
    for (const bad of [-1, 0, 'ten', 10.001, 1e9]) {
      const r = await call(app, 'PUT', '/api/adv/notifications', { token: adv.token, json: { low_balance_usd: bad } });
      expect([r.status, Object.keys((r.body as { errors: object }).errors)], String(bad)).toEqual([
        400,
        ['low_balance_usd'],
      ]);
    }
    const pub = await account(app, 'publisher');
    expect(
      (await call(app, 'PUT', '/api/adv/notifications', { token: pub.token, json: { low_balance_usd: 5 } })).status,
    ).toBe(403);
  });
});

describe('without SMTP', () => {
  it('writes each message as one .eml file under DATA_DIR/outbox and logs no link or address', async () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const local = await startApp(redis.url, { LOG_LEVEL: 'debug' }, { log: createLogger('debug', 'adnet', sink) });
    try {
      const email = uniqueEmail('outbox');
      expect(
        (
          await call(local, 'POST', '/api/auth/register', {
            json: { email, password: 'first-pass-1', role: 'publisher' },
          })
        ).status,
      ).toBe(202);
      expect((await call(local, 'POST', '/api/auth/password-reset', { json: { email } })).status).toBe(202);
      await local.admin.mail.worker.runOnce();
      expect(local.admin.mail.transport.mode).toBe('outbox');
      const dir = join(local.svc.config.storage.dataDir, 'outbox');
      const files = readdirSync(dir).filter((f) => f.endsWith('.eml'));
      const mails = files.map((f) => parseMail(readFileSync(join(dir, f), 'utf8')));
      const mine = mails.filter((m) => /verify-email|reset-password#/.test(m.text));
      expect(mine.map((m) => m.subject).sort()).toEqual(['Confirm your email address', 'Reset your password']);
      const raw = readFileSync(join(dir, files[0] as string), 'utf8');
      expect(raw).toMatch(/^To: /m);
      const token = linkToken(mine.find((m) => /Reset/.test(m.subject)) as { text: string }, 'reset-password');
      expect(
        (await call(local, 'POST', '/api/auth/password-reset/confirm', { json: { token, password: 'second-pass-2' } }))
          .status,
      ).toBe(200);
      const log = lines.join('');
      expect(log).toContain('"event":"mail.sent"');
      expect(log).not.toContain(token);
      expect(log).not.toContain(email);
      expect(log).not.toContain('#token=');
    } finally {
      await local.close();
    }
  });
});
