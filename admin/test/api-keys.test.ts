import { describe, expect, it } from 'vitest';
import { account, call, startApp, useTestApp, validCampaign } from '@adnet/test-support/admin';
import { trpcClient } from './support/trpc-client.ts';

const fx = useTestApp();

async function makeKey(token: string, scopes: string[], name = 'ci') {
  const r = await call<{ id: number; key: string; scopes: string[]; name: string }>(fx.app, 'POST', '/api/keys', {
    token,
    json: { name, scopes },
  });
  expect(r.status).toBe(201);
  return r.body;
}

describe('API keys', () => {
  it('shows the key once, stores only its hash, and lists keys without secrets', async () => {
    const adv = await account(fx.app, 'advertiser');
    const made = await makeKey(adv.token, ['read', 'read', 'stats'], 'reporting');
    expect(made).toMatchObject({
      id: expect.any(Number),
      name: 'reporting',
      scopes: ['read', 'stats'],
      key: expect.stringMatching(/^adn_\d+_[A-Za-z0-9_-]{43}$/),
    });
    const list = await call<{ keys: Record<string, unknown>[] }>(fx.app, 'GET', '/api/keys', { token: adv.token });
    expect(list.body.keys).toEqual([
      {
        id: made.id,
        name: 'reporting',
        scopes: ['read', 'stats'],
        prefix: expect.stringMatching(/^adn_\d+_.{4}…$/),
        created_at: expect.any(String),
        last_used_at: null,
      },
    ]);
    expect(JSON.stringify(list.body)).not.toContain(made.key.slice(-39));
    const stored = JSON.stringify(await fx.app.svc.redis.hgetall(`{users}:ak:${made.id}`));
    expect(stored).not.toContain(made.key.slice(-39));
    // Used as a bearer token, within its scopes.
    expect((await call(fx.app, 'GET', '/api/adv/campaigns', { token: made.key })).status).toBe(200);
    expect(
      (await call(fx.app, 'GET', '/api/adv/stats?from=2026-01-01&to=2026-01-02', { token: made.key })).status,
    ).not.toBe(403);
    const after = await call<{ keys: { last_used_at: string | null }[] }>(fx.app, 'GET', '/api/keys', {
      token: adv.token,
    });
    expect(after.body.keys[0]?.last_used_at).toEqual(expect.any(String));
  });

  it('answers 403 in the error shape outside its scopes, through REST and tRPC alike', async () => {
    const adv = await account(fx.app, 'advertiser');
    const read = await makeKey(adv.token, ['read']);
    const write = await makeKey(adv.token, ['write']);
    const create = await call(fx.app, 'POST', '/api/adv/campaigns', { token: read.key, json: validCampaign });
    expect([create.status, create.body]).toEqual([
      403,
      { error: expect.stringContaining('needs write'), code: 'forbidden' },
    ]);
    expect((await call(fx.app, 'POST', '/api/adv/campaigns', { token: write.key, json: validCampaign })).status).toBe(
      201,
    );
    expect((await call(fx.app, 'GET', '/api/adv/campaigns', { token: write.key })).status).toBe(403);
    expect((await call(fx.app, 'GET', '/api/adv/stats', { token: read.key })).status).toBe(403);
    expect((await call(fx.app, 'GET', '/api/adv/profile', { token: read.key })).status).toBe(403);
    const postback = await makeKey(adv.token, ['postback']);
    expect((await call(fx.app, 'GET', '/api/adv/profile', { token: postback.key })).status).toBe(200);
    expect((await call(fx.app, 'GET', '/api/adv/conversions', { token: postback.key })).status).toBe(200);
    await expect(
      trpcClient(fx.app.base, read.key).adv.campaigns.create.mutate(validCampaign as never),
    ).rejects.toMatchObject({
      data: { httpStatus: 403, appCode: 'forbidden' },
    });
    expect(await trpcClient(fx.app.base, read.key).adv.campaigns.list.query()).toBeDefined();
    // The role still decides: an advertiser's key reaches no publisher or admin path.
    expect((await call(fx.app, 'GET', '/api/pub/sites', { token: read.key })).status).toBe(403);
  });

  it('cannot make keys, list or revoke them, change the password or sign out', async () => {
    const adv = await account(fx.app, 'advertiser');
    const all = await makeKey(adv.token, ['read', 'write', 'stats', 'postback']);
    const tries = [
      call(fx.app, 'POST', '/api/keys', { token: all.key, json: { name: 'x', scopes: ['read'] } }),
      call(fx.app, 'GET', '/api/keys', { token: all.key }),
      call(fx.app, 'DELETE', `/api/keys/${all.id}`, { token: all.key }),
      call(fx.app, 'POST', '/api/auth/password', {
        token: all.key,
        json: { current_password: 'password-123', new_password: 'other-pass-1' },
      }),
      call(fx.app, 'POST', '/api/auth/logout-all', { token: all.key }),
      call(fx.app, 'POST', '/api/auth/logout', { token: all.key }),
    ];
    for (const r of await Promise.all(tries))
      expect([r.status, (r.body as { code: string }).code]).toEqual([403, 'forbidden']);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: all.key })).body).toMatchObject({
      id: adv.id,
      token_expires_at: null,
    });
  });

  it('stops a revoked, forged or foreign key with 401, and revoking is the owner’s alone', async () => {
    const adv = await account(fx.app, 'advertiser');
    const other = await account(fx.app, 'advertiser');
    const k = await makeKey(adv.token, ['read']);
    expect((await call(fx.app, 'DELETE', `/api/keys/${k.id}`, { token: other.token })).status).toBe(404);
    expect((await call(fx.app, 'GET', '/api/adv/campaigns', { token: k.key })).status).toBe(200);
    const del = await call(fx.app, 'DELETE', `/api/keys/${k.id}`, { token: adv.token });
    expect([del.status, del.body]).toEqual([200, { ok: true }]);
    const revoked = await call(fx.app, 'GET', '/api/adv/campaigns', { token: k.key });
    expect([revoked.status, (revoked.body as { code: string }).code]).toEqual([401, 'unauthorized']);
    expect((await call(fx.app, 'DELETE', `/api/keys/${k.id}`, { token: adv.token })).status).toBe(404);
    const live = await makeKey(adv.token, ['read']);
    const forged = live.key.slice(0, -1) + (live.key.endsWith('A') ? 'B' : 'A');
    for (const bad of [forged, `adn_${live.id}_short`, 'adn_', `adn_999999_${'A'.repeat(43)}`]) {
      expect((await call(fx.app, 'GET', '/api/adv/campaigns', { token: bad })).status, bad).toBe(401);
    }
    expect((await call(fx.app, 'GET', '/api/keys', { token: adv.token })).body).toMatchObject({
      keys: [{ id: live.id }],
    });
  });

  it('names bad fields with 400', async () => {
    const adv = await account(fx.app, 'advertiser');
    const cases: [unknown, string[]][] = [
      [{}, ['name', 'scopes']],
      [{ name: '', scopes: ['read'] }, ['name']],
      [{ name: 'x'.repeat(101), scopes: ['read'] }, ['name']],
      [{ name: 'x', scopes: [] }, ['scopes']],
      [{ name: 'x', scopes: 'read' }, ['scopes']],
      [{ name: 'x', scopes: ['admin'] }, ['scopes.0']],
      [{ name: 7, scopes: ['read'] }, ['name']],
    ];
    for (const [json, fields] of cases) {
      const r = await call<{ errors: Record<string, string> }>(fx.app, 'POST', '/api/keys', { token: adv.token, json });
      expect([r.status, Object.keys(r.body.errors ?? {}).sort()], JSON.stringify(json)).toEqual([400, fields]);
    }
    expect((await call(fx.app, 'DELETE', '/api/keys/abc', { token: adv.token })).status).toBe(400);
  });

  it('signing out everywhere revokes every session and every API key', async () => {
    const adv = await account(fx.app, 'advertiser');
    const k = await makeKey(adv.token, ['read']);
    const second = await call<{ token: string }>(fx.app, 'POST', '/api/auth/token', {
      json: { email: adv.email, password: 'password-123' },
    });
    expect((await call(fx.app, 'POST', '/api/auth/logout-all', { token: adv.token })).status).toBe(200);
    for (const t of [adv.token, second.body.token, k.key])
      expect((await call(fx.app, 'GET', '/api/auth/me', { token: t })).status).toBe(401);
    const fresh = await call<{ token: string }>(fx.app, 'POST', '/api/auth/token', {
      json: { email: adv.email, password: 'password-123' },
    });
    expect((await call(fx.app, 'GET', '/api/keys', { token: fresh.body.token })).body).toEqual({ keys: [] });
    // A key made afterwards works.
    const after = await makeKey(fresh.body.token, ['read']);
    expect((await call(fx.app, 'GET', '/api/adv/campaigns', { token: after.key })).status).toBe(200);
  });

  it('changing the password keeps this session and revokes the other sessions and the keys', async () => {
    const adv = await account(fx.app, 'advertiser');
    const k = await makeKey(adv.token, ['read']);
    const changed = await call(fx.app, 'POST', '/api/auth/password', {
      token: adv.token,
      json: { current_password: 'password-123', new_password: 'brand-new-pw' },
    });
    expect(changed.status).toBe(200);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: adv.token })).status).toBe(200);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: k.key })).status).toBe(401);
  });
});

describe('the typed client', () => {
  it('manages keys and asks for a password reset through tRPC, with the same answers as REST', async () => {
    const adv = await account(fx.app, 'advertiser');
    const client = trpcClient(fx.app.base, adv.token);
    const made = await client.keys.create.mutate({ name: 'typed', scopes: ['stats'] });
    expect(made.key).toMatch(/^adn_/);
    expect((await client.keys.list.query()).keys.map((k) => k.name)).toEqual(['typed']);
    expect(await trpcClient(fx.app.base, made.key).auth.me.query()).toMatchObject({ id: adv.id });
    await expect(trpcClient(fx.app.base, made.key).keys.list.query()).rejects.toMatchObject({
      data: { httpStatus: 403 },
    });
    expect(await client.keys.revoke.mutate({ id: made.id })).toEqual({ ok: true });
    expect(await trpcClient(fx.app.base).auth.passwordReset.mutate({ email: adv.email })).toEqual({ ok: true });
    await expect(
      trpcClient(fx.app.base).auth.passwordResetConfirm.mutate({ token: 'A'.repeat(43), password: 'whatever-123' }),
    ).rejects.toMatchObject({
      data: { httpStatus: 400, fields: { token: 'is invalid or expired' } },
    });
  });
});

describe('API key rate limit', () => {
  it('counts each key on its own, apart from session tokens', async () => {
    const { redis } = fx;
    const app = await startApp(redis.url, { API_KEY_RATE_LIMIT_PER_MIN: '3', API_RATE_LIMIT_PER_MIN: '100000' });
    try {
      const adv = await account(app, 'advertiser');
      const mk = async () =>
        (
          await call<{ key: string }>(app, 'POST', '/api/keys', {
            token: adv.token,
            json: { name: 'r', scopes: ['read'] },
          })
        ).body.key;
      const [a, b] = [await mk(), await mk()];
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await call(app, 'GET', '/api/adv/campaigns', { token: a })).status);
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      const limited = await call(app, 'GET', '/api/adv/campaigns', { token: a });
      expect([limited.body, Number(limited.headers.get('retry-after'))]).toEqual([
        { error: 'Rate limit exceeded', code: 'rate_limited' },
        expect.any(Number),
      ]);
      expect((await call(app, 'GET', '/api/adv/campaigns', { token: b })).status).toBe(200);
      expect((await call(app, 'GET', '/api/adv/campaigns', { token: adv.token })).status).toBe(200);
    } finally {
      await app.close();
    }
  });
});
