import { describe, expect, it } from 'vitest';
import { account, call, startApp, uniqueEmail, useTestApp } from '@adnet/test-support/admin';
import { createHash } from 'node:crypto';
import { PasswordHasher } from '../src/auth/password.ts';
import { signInBackoffKey } from '../src/storage/keys.ts';
import { trpcClient } from './support/trpc-client.ts';

const fx = useTestApp();

describe('POST /api/auth/register', () => {
  it('creates an advertiser and a publisher, who can then sign in', async () => {
    for (const role of ['advertiser', 'publisher']) {
      const email = uniqueEmail();
      const r = await call(fx.app, 'POST', '/api/auth/register', { json: { email, password: 'longenough', role } });
      expect(r.status).toBe(202);
      expect(r.body).toEqual({ ok: true });
      const tok = await call(fx.app, 'POST', '/api/auth/token', { json: { email, password: 'longenough' } });
      expect(tok.status).toBe(200);
      expect(tok.body.user).toEqual({ id: expect.any(Number), role });
    }
  });

  it('names every invalid field', async () => {
    const r = await call(fx.app, 'POST', '/api/auth/register', {
      json: { email: 'not-an-email', password: 'short', role: 'admin' },
    });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors as object).sort()).toEqual(['email', 'password', 'role']);
    const empty = await call(fx.app, 'POST', '/api/auth/register', { json: {} });
    expect(empty.body).toEqual({ errors: { email: 'is required', password: 'is required', role: 'is required' } });
  });

  it('refuses bodies that are not JSON objects', async () => {
    expect(
      (await call(fx.app, 'POST', '/api/auth/register', { raw: { body: '{oops', type: 'application/json' } })).body,
    ).toEqual({
      errors: { body: 'must be valid JSON' },
    });
    expect(
      (await call(fx.app, 'POST', '/api/auth/register', { raw: { body: '[1,2]', type: 'application/json' } })).status,
    ).toBe(400);
    expect(
      (
        await call(fx.app, 'POST', '/api/auth/register', {
          raw: { body: 'email=x', type: 'application/x-www-form-urlencoded' },
        })
      ).status,
    ).toBe(415);
  });

  it('answers a taken email (in any letter case) exactly as a new one, and keeps the first account', async () => {
    const email = uniqueEmail();
    const first = await call(fx.app, 'POST', '/api/auth/register', {
      json: { email, password: 'longenough', role: 'advertiser' },
    });
    const again = await call(fx.app, 'POST', '/api/auth/register', {
      json: { email: email.toUpperCase(), password: 'otherpass', role: 'publisher' },
    });
    expect([again.status, again.body]).toEqual([first.status, first.body]);
    expect(again.headers.get('content-length')).toBe(first.headers.get('content-length'));
    expect((await call(fx.app, 'POST', '/api/auth/token', { json: { email, password: 'otherpass' } })).status).toBe(
      401,
    );
    const tok = await call(fx.app, 'POST', '/api/auth/token', { json: { email, password: 'longenough' } });
    expect(tok.body.user).toMatchObject({ role: 'advertiser' });
  });

  it('lets exactly one of many simultaneous sign-ups with one email make the account', async () => {
    const email = uniqueEmail();
    const replies = await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        call(fx.app, 'POST', '/api/auth/register', {
          json: { email, password: `longenough-${i}`, role: 'advertiser' },
        }),
      ),
    );
    expect(replies.map((r) => r.status)).toEqual(Array(8).fill(202));
    const signedIn = await Promise.all(
      replies.map((_, i) => call(fx.app, 'POST', '/api/auth/token', { json: { email, password: `longenough-${i}` } })),
    );
    expect(signedIn.filter((r) => r.status === 200)).toHaveLength(1);
  });

  it("stores OWASP's scrypt cost (N=2^17, r=8, p=1) under the default configuration", async () => {
    const full = await startApp(fx.redis.url, { PASSWORD_SCRYPT_LOG_N: '' });
    try {
      const email = uniqueEmail();
      expect(
        (
          await call(full, 'POST', '/api/auth/register', {
            json: { email, password: 'full-cost-pw', role: 'advertiser' },
          })
        ).status,
      ).toBe(202);
      expect((await full.svc.users.getByEmail(email))?.passwordHash).toMatch(/^scrypt\$131072\$8\$1\$/);
    } finally {
      await full.close();
    }
  });

  it('can be switched off', async () => {
    const closed = await startApp(fx.redis.url, { REGISTRATION_ENABLED: 'false' });
    try {
      const r = await call(closed, 'POST', '/api/auth/register', {
        json: { email: uniqueEmail(), password: 'longenough', role: 'advertiser' },
      });
      expect(r.status).toBe(403);
      expect(r.body.code).toBe('registration_disabled');
    } finally {
      await closed.close();
    }
  });
});

describe('POST /api/auth/token', () => {
  it('returns a <id>|<opaque> token and the user', async () => {
    const email = uniqueEmail();
    await call(fx.app, 'POST', '/api/auth/register', { json: { email, password: 'longenough', role: 'advertiser' } });
    const r = await call(fx.app, 'POST', '/api/auth/token', { json: { email, password: 'longenough' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({
      token_type: 'Bearer',
      user: { id: (await fx.app.svc.users.getByEmail(email))?.id, role: 'advertiser' },
    });
    expect(r.body.token).toMatch(/^\d+\|[A-Za-z0-9_-]{43}$/);
    const days = (Date.parse(r.body.expires_at as string) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
  });

  it('stores only a hash of the opaque part', async () => {
    const a = await account(fx.app, 'advertiser');
    const [id, opaque] = a.token.split('|') as [string, string];
    const stored = await fx.app.svc.redis.hgetall(`tok:${id}`);
    expect(JSON.stringify(stored)).not.toContain(opaque);
    expect(stored.h).toMatch(/^[0-9a-f]{64}$/);
  });

  it('answers 401 for a wrong password or an unknown email, 400 for missing fields', async () => {
    const a = await account(fx.app, 'advertiser');
    const wrong = await call(fx.app, 'POST', '/api/auth/token', { json: { email: a.email, password: 'nope-nope' } });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({ error: 'Wrong email or password', code: 'invalid_credentials' });
    expect(
      (await call(fx.app, 'POST', '/api/auth/token', { json: { email: uniqueEmail(), password: 'whatever1' } })).status,
    ).toBe(401);
    const missing = await call(fx.app, 'POST', '/api/auth/token', { json: { email: a.email } });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({ errors: { password: 'is required' } });
  });

  it('limits attempts per address with Retry-After', async () => {
    const strict = await startApp(fx.redis.url, { AUTH_RATE_LIMIT_PER_MIN: '3' });
    try {
      const statuses: number[] = [];
      let retryAfter: string | null = null;
      for (let i = 0; i < 4; i++) {
        const r = await call(strict, 'POST', '/api/auth/token', {
          json: { email: 'x@example.com', password: 'whatever1' },
        });
        statuses.push(r.status);
        retryAfter = r.headers.get('retry-after');
      }
      expect(statuses).toEqual([401, 401, 401, 429]);
      expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(retryAfter)).toBeLessThanOrEqual(20);
    } finally {
      await strict.svc.redis.del('rl:{ip:127.0.0.1}', 'rl:{ip:::ffff:127.0.0.1}');
      await strict.close();
    }
  });
});

describe('bearer tokens', () => {
  it('401 without a token, with a malformed one and with a forged one', async () => {
    const a = await account(fx.app, 'advertiser');
    expect((await call(fx.app, 'GET', '/api/adv/campaigns')).status).toBe(401);
    expect((await call(fx.app, 'GET', '/api/adv/campaigns', { headers: { authorization: 'Basic abc' } })).status).toBe(
      401,
    );
    expect((await call(fx.app, 'GET', '/api/adv/campaigns', { token: 'garbage' })).status).toBe(401);
    const [id] = a.token.split('|');
    const forged = await call(fx.app, 'GET', '/api/adv/campaigns', { token: `${id}|${'A'.repeat(43)}` });
    expect(forged.status).toBe(401);
    expect(forged.body).toEqual({ error: 'Invalid token', code: 'unauthorized' });
    expect((await call(fx.app, 'GET', '/api/adv/campaigns', { token: a.token })).status).toBe(200);
  });

  it('401 token_expired after expiry', async () => {
    const a = await account(fx.app, 'advertiser');
    const old = await fx.app.svc.tokens.issue(a.id, 'advertiser', 60, Date.now() - 120_000);
    const r = await call(fx.app, 'GET', '/api/adv/campaigns', { token: old.token });
    expect(r.status).toBe(401);
    expect(r.body.code).toBe('token_expired');
  });

  it('logout revokes only the token used', async () => {
    const a = await account(fx.app, 'advertiser');
    const second = await call<{ token: string }>(fx.app, 'POST', '/api/auth/token', {
      json: { email: a.email, password: 'password-123' },
    });
    expect((await call(fx.app, 'POST', '/api/auth/logout', { token: a.token })).body).toEqual({ ok: true });
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: a.token })).status).toBe(401);
    const me = await call(fx.app, 'GET', '/api/auth/me', { token: second.body.token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: a.id, role: 'advertiser', email: a.email });
  });

  it('405 with Allow for a known path and a wrong method; 404 JSON for unknown paths', async () => {
    const a = await account(fx.app, 'advertiser');
    const r = await call(fx.app, 'DELETE', '/api/adv/campaigns', { token: a.token });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, POST');
    const nf = await call(fx.app, 'GET', '/api/nothing/here', { token: a.token });
    expect(nf.status).toBe(404);
    expect(nf.body.code).toBe('not_found');
  });
});

describe('sign-in back-off per account and client network', () => {
  // The tests' client is loopback, a trusted proxy by default: X-Forwarded-For names the client.
  const signIn = (email: string, password: string, client?: string) =>
    call(fx.app, 'POST', '/api/auth/token', {
      json: { email, password },
      headers: client ? { 'x-forwarded-for': client } : {},
    });

  it('after five wrong passwords the network waits, a right password included, then starts afresh; other networks do not', async () => {
    const a = await account(fx.app, 'advertiser');
    const other = await account(fx.app, 'advertiser');
    const wrong: number[] = [];
    for (let i = 0; i < 6; i++) wrong.push((await signIn(a.email, `wrong-${i}`)).status);
    expect(wrong).toEqual([401, 401, 401, 401, 401, 401]);
    const refused = await signIn(a.email, 'password-123');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBe(1);
    // The owner on another network is not kept out, whether IPv4 or IPv6.
    expect((await signIn(a.email, 'password-123', '203.0.113.5')).status).toBe(200);
    expect((await signIn(a.email, 'password-123', '2001:db8::5')).status).toBe(200);
    // Another account is not touched.
    expect((await signIn(other.email, 'password-123')).status).toBe(200);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await signIn(a.email, 'password-123')).status).toBe(200);
    expect((await signIn(a.email, 'wrong-again')).status).toBe(401);
  });

  it('doubles the wait with each further failure', async () => {
    const a = await account(fx.app, 'advertiser');
    for (let i = 0; i < 6; i++) await signIn(a.email, `wrong-${i}`);
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await signIn(a.email, 'wrong-7')).status).toBe(401);
    const refused = await signIn(a.email, 'password-123');
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(2);
  });

  it('holds for parallel guesses, and for unknown emails alike (a 429 tells nothing about accounts)', async () => {
    const a = await account(fx.app, 'advertiser');
    const burst = await Promise.all(Array.from({ length: 20 }, (_, i) => signIn(a.email, `guess-${i}`)));
    expect(burst.filter((r) => r.status === 401)).toHaveLength(6);
    expect(burst.filter((r) => r.status === 429)).toHaveLength(14);
    const ghost = uniqueEmail('ghost');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await signIn(ghost, `guess-${i}`)).status);
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429]);
  });
});

describe('known networks of an account', () => {
  it('keep the 8 most recent that signed in, and expire', async () => {
    const a = await account(fx.app, 'advertiser');
    for (let n = 1; n <= 12; n++) {
      expect(
        (
          await call(fx.app, 'POST', '/api/auth/token', {
            json: { email: a.email, password: 'password-123' },
            headers: { 'x-forwarded-for': `10.0.${n}.1` },
          })
        ).status,
      ).toBe(200);
    }
    const key = `${signInBackoffKey(createHash('sha256').update(a.email).digest('base64url').slice(0, 22))}:known`;
    const known = await fx.app.svc.redis.zrange(key, 0, -1);
    expect(known).toEqual([
      '10.0.5.0/24',
      '10.0.6.0/24',
      '10.0.7.0/24',
      '10.0.8.0/24',
      '10.0.9.0/24',
      '10.0.10.0/24',
      '10.0.11.0/24',
      '10.0.12.0/24',
    ]);
    const ttl = await fx.app.svc.redis.pttl(key);
    expect(ttl).toBeGreaterThan(29 * 24 * 3_600_000);
    expect(ttl).toBeLessThanOrEqual(30 * 24 * 3_600_000);
  });
});

describe('password storage', () => {
  it('rehashes a hash made at another cost at the next sign-in', async () => {
    const email = uniqueEmail('old');
    const oldHash = await new PasswordHasher({ N: 1024, r: 8, p: 1 }).hash('old-hash-pw');
    const user = await fx.app.svc.users.create({
      email,
      role: 'advertiser',
      passwordHash: oldHash,
      postbackSecret: 'f'.repeat(64),
    });
    expect((await call(fx.app, 'POST', '/api/auth/token', { json: { email, password: 'old-hash-pw' } })).status).toBe(
      200,
    );
    const stored = (await fx.app.svc.users.get(user?.id ?? 0))?.passwordHash ?? '';
    expect(stored).toMatch(/^scrypt\$4096\$8\$1\$/);
    expect((await call(fx.app, 'POST', '/api/auth/token', { json: { email, password: 'old-hash-pw' } })).status).toBe(
      200,
    );
  });
});

describe('password change and sign-out everywhere', () => {
  const signIn = async (email: string, password: string) =>
    call<{ token: string }>(fx.app, 'POST', '/api/auth/token', { json: { email, password } });

  it('needs the current password, keeps the token used and revokes every other', async () => {
    const a = await account(fx.app, 'publisher');
    const other = (await signIn(a.email, 'password-123')).body.token;
    const wrong = await call(fx.app, 'POST', '/api/auth/password', {
      token: a.token,
      json: { current_password: 'not-it-123', new_password: 'brand-new-pw' },
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ errors: { current_password: 'is not the current password' } });
    const short = await call(fx.app, 'POST', '/api/auth/password', {
      token: a.token,
      json: { current_password: 'password-123', new_password: 'short' },
    });
    expect(short.body).toEqual({ errors: { new_password: 'must be at least 8 characters' } });

    const ok = await call(fx.app, 'POST', '/api/auth/password', {
      token: a.token,
      json: { current_password: 'password-123', new_password: 'brand-new-pw' },
    });
    expect([ok.status, ok.body]).toEqual([200, { ok: true }]);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: a.token })).status).toBe(200);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: other })).status).toBe(401);
    expect((await signIn(a.email, 'password-123')).status).toBe(401);
    const fresh = await signIn(a.email, 'brand-new-pw');
    expect(fresh.status).toBe(200);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: fresh.body.token })).status).toBe(200);
  });

  it('is under the sign-in back-off, so a stolen token cannot guess the password', async () => {
    const a = await account(fx.app, 'advertiser');
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const r = await call(fx.app, 'POST', '/api/auth/password', {
        token: a.token,
        json: { current_password: `guess-${i}-x`, new_password: 'brand-new-pw' },
      });
      statuses.push(r.status);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 400, 429]);
  });

  it('sign out everywhere revokes every token of the account, through REST and tRPC alike', async () => {
    const a = await account(fx.app, 'advertiser');
    const b = await account(fx.app, 'advertiser');
    const second = (await signIn(a.email, 'password-123')).body.token;
    expect((await call(fx.app, 'POST', '/api/auth/logout-all', { token: a.token })).body).toEqual({ ok: true });
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: a.token })).status).toBe(401);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: second })).status).toBe(401);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: b.token })).status).toBe(200);
    const again = (await signIn(a.email, 'password-123')).body.token;
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: again })).status).toBe(200);

    await trpcClient(fx.app.base, again).auth.logoutAll.mutate();
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: again })).status).toBe(401);
  });
});
