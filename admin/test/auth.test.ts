import { describe, expect, it } from 'vitest';
import { account, call, startApp, uniqueEmail, useTestApp } from '../../tests/e2e/support/admin.ts';

const fx = useTestApp();

describe('POST /api/auth/register', () => {
  it('creates an advertiser and a publisher', async () => {
    for (const role of ['advertiser', 'publisher']) {
      const r = await call(fx.app, 'POST', '/api/auth/register', { json: { email: uniqueEmail(), password: 'longenough', role } });
      expect(r.status).toBe(201);
      expect(r.body).toEqual({ user: { id: expect.any(Number), role } });
    }
  });

  it('names every invalid field', async () => {
    const r = await call(fx.app, 'POST', '/api/auth/register', { json: { email: 'not-an-email', password: 'short', role: 'admin' } });
    expect(r.status).toBe(400);
    expect(Object.keys(r.body.errors as object).sort()).toEqual(['email', 'password', 'role']);
    const empty = await call(fx.app, 'POST', '/api/auth/register', { json: {} });
    expect(empty.body).toEqual({ errors: { email: 'is required', password: 'is required', role: 'is required' } });
  });

  it('refuses bodies that are not JSON objects', async () => {
    expect((await call(fx.app, 'POST', '/api/auth/register', { raw: { body: '{oops', type: 'application/json' } })).body).toEqual({
      errors: { body: 'must be valid JSON' },
    });
    expect((await call(fx.app, 'POST', '/api/auth/register', { raw: { body: '[1,2]', type: 'application/json' } })).status).toBe(400);
    expect((await call(fx.app, 'POST', '/api/auth/register', { raw: { body: 'email=x', type: 'application/x-www-form-urlencoded' } })).status).toBe(415);
  });

  it('answers 409 for an email already taken, in any letter case', async () => {
    const email = uniqueEmail();
    expect((await call(fx.app, 'POST', '/api/auth/register', { json: { email, password: 'longenough', role: 'advertiser' } })).status).toBe(201);
    const again = await call(fx.app, 'POST', '/api/auth/register', { json: { email: email.toUpperCase(), password: 'longenough', role: 'publisher' } });
    expect(again.status).toBe(409);
    expect(again.body).toEqual({ error: expect.any(String), code: 'email_taken' });
  });

  it('lets exactly one of many simultaneous sign-ups with one email through', async () => {
    const email = uniqueEmail();
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => call(fx.app, 'POST', '/api/auth/register', { json: { email, password: 'longenough', role: 'advertiser' } })),
    );
    expect(replies.filter((r) => r.status === 201)).toHaveLength(1);
    expect(replies.filter((r) => r.status === 409)).toHaveLength(7);
  });

  it('can be switched off', async () => {
    const closed = await startApp(fx.redis.url, { REGISTRATION_ENABLED: 'false' });
    try {
      const r = await call(closed, 'POST', '/api/auth/register', { json: { email: uniqueEmail(), password: 'longenough', role: 'advertiser' } });
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
    const reg = await call<{ user: { id: number } }>(fx.app, 'POST', '/api/auth/register', { json: { email, password: 'longenough', role: 'advertiser' } });
    const r = await call(fx.app, 'POST', '/api/auth/token', { json: { email, password: 'longenough' } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ token_type: 'Bearer', user: { id: reg.body.user.id, role: 'advertiser' } });
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
    expect((await call(fx.app, 'POST', '/api/auth/token', { json: { email: uniqueEmail(), password: 'whatever1' } })).status).toBe(401);
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
        const r = await call(strict, 'POST', '/api/auth/token', { json: { email: 'x@example.com', password: 'whatever1' } });
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
    expect((await call(fx.app, 'GET', '/api/adv/campaigns', { headers: { authorization: 'Basic abc' } })).status).toBe(401);
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
    const second = await call<{ token: string }>(fx.app, 'POST', '/api/auth/token', { json: { email: a.email, password: 'password-123' } });
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
