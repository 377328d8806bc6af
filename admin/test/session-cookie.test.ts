// The cabinet's session cookie (admin/src/auth/session-cookie.ts) through the real admin: how it is set,
// where it counts, the CSRF rule, and how sign-out ends it. API clients' bearer tokens are untouched.
import { describe, expect, it } from 'vitest';
import { account, call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';

const fx = useTestApp({ TOKEN_TTL_DAYS: '2' });
const CABINET = { 'x-adnet-cabinet': '1', 'sec-fetch-site': 'same-origin' };

interface Answer {
  status: number;
  body: Record<string, unknown>;
  setCookie: string[];
}

async function trpc(
  method: 'GET' | 'POST',
  procedure: string,
  headers: Record<string, string>,
  input?: unknown,
): Promise<Answer> {
  const res = await fetch(`${fx.app.base}/trpc/${procedure}`, {
    method,
    headers: { ...(input === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    body: input === undefined ? undefined : JSON.stringify(input),
  });
  return {
    status: res.status,
    body: (await res.json()) as Record<string, unknown>,
    setCookie: res.headers.getSetCookie(),
  };
}

/** Signs `who` in as the cabinet does; the cookie's value and the Set-Cookie line. */
async function cookieSignIn(
  who: Account,
  extra: Record<string, string> = {},
): Promise<{ cookie: string; line: string; answer: Answer }> {
  const answer = await trpc(
    'POST',
    'auth.session',
    { ...CABINET, ...extra },
    { email: who.email, password: 'password-123' },
  );
  const line = answer.setCookie[0] ?? '';
  return { cookie: line.split(';')[0] ?? '', line, answer };
}

const me = (cookie: string, headers: Record<string, string> = CABINET) =>
  trpc('GET', 'auth.me', { ...headers, cookie });

describe('signing in from the cabinet (auth.session)', () => {
  it('sets the token as an HttpOnly, SameSite=Strict cookie on /trpc for the token lifetime, and answers without it', async () => {
    const adv = await account(fx.app, 'advertiser');
    const { cookie, line, answer } = await cookieSignIn(adv);
    expect(answer.status).toBe(200);
    expect(answer.setCookie).toHaveLength(1);
    expect(cookie).toMatch(/^adnet_session=\d+\|[A-Za-z0-9_-]{43}$/);
    const attrs = line
      .split(';')
      .slice(1)
      .map((a) => a.trim());
    expect(attrs).toContain('HttpOnly');
    expect(attrs).toContain('SameSite=Strict');
    expect(attrs).toContain('Path=/trpc');
    // Plain http here: a Secure cookie would never come back.
    expect(attrs).not.toContain('Secure');
    const maxAge = Number(attrs.find((a) => a.startsWith('Max-Age='))?.slice('Max-Age='.length));
    expect(maxAge).toBeGreaterThan(2 * 86_400 - 60);
    expect(maxAge).toBeLessThanOrEqual(2 * 86_400);
    const token = cookie.slice('adnet_session='.length);
    expect(JSON.stringify(answer.body)).not.toContain(token.split('|')[1]);
    expect((answer.body as { result: { data: unknown } }).result.data).toEqual({
      expires_at: expect.any(String),
      user: { id: adv.id, role: 'advertiser', email: adv.email },
    });
  });

  it('is Secure when a trusted proxy says the client came over https', async () => {
    const adv = await account(fx.app, 'advertiser');
    const { line } = await cookieSignIn(adv, { 'x-forwarded-proto': 'https' });
    expect(line.split(';').map((a) => a.trim())).toContain('Secure');
  });

  it('refuses a sign-in from another origin (login CSRF) and sets no cookie', async () => {
    const adv = await account(fx.app, 'advertiser');
    const input = { email: adv.email, password: 'password-123' };
    const foreign = await trpc(
      'POST',
      'auth.session',
      { 'x-adnet-cabinet': '1', origin: 'https://evil.example' },
      input,
    );
    expect([foreign.status, foreign.setCookie]).toEqual([403, []]);
    const crossSite = await trpc(
      'POST',
      'auth.session',
      { 'x-adnet-cabinet': '1', 'sec-fetch-site': 'cross-site' },
      input,
    );
    expect([crossSite.status, crossSite.setCookie]).toEqual([403, []]);
    const noHeader = await trpc('POST', 'auth.session', { 'sec-fetch-site': 'same-origin' }, input);
    expect([noHeader.status, noHeader.setCookie]).toEqual([403, []]);
    // A browser that sends no Sec-Fetch-Site but our own Origin is let in.
    const ownOrigin = await trpc('POST', 'auth.session', { 'x-adnet-cabinet': '1', origin: fx.app.base }, input);
    expect(ownOrigin.status).toBe(200);
    expect(ownOrigin.setCookie).toHaveLength(1);
  });

  it('leaves the documented token answer to API clients as it was', async () => {
    const adv = await account(fx.app, 'advertiser');
    const r = await fetch(`${fx.app.base}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: adv.email, password: 'password-123' }),
    });
    expect(r.headers.getSetCookie()).toEqual([]);
    expect(Object.keys((await r.json()) as object).sort()).toEqual(['expires_at', 'token', 'token_type', 'user']);
  });
});

describe('requests with the cookie', () => {
  it('authenticate queries from the cabinet, and only with its header', async () => {
    const pub = await account(fx.app, 'publisher');
    const { cookie } = await cookieSignIn(pub);
    const ok = await me(cookie);
    expect(ok.status).toBe(200);
    expect((ok.body as { result: { data: { email: string } } }).result.data.email).toBe(pub.email);
    expect((await trpc('GET', 'pub.sites.list', { ...CABINET, cookie })).status).toBe(200);
    expect((await me(cookie, { 'sec-fetch-site': 'same-origin' })).status).toBe(403);
    // The REST table is for API clients: the cookie counts on /trpc only (and the browser sends it nowhere else).
    expect((await call(fx.app, 'GET', '/api/auth/me', { headers: { cookie, ...CABINET } })).status).toBe(401);
  });

  it('refuse a cross-site state change (no cabinet header, or another origin) with 403, and leave the session alone', async () => {
    const adv = await account(fx.app, 'advertiser');
    const { cookie } = await cookieSignIn(adv);
    const attempts: Record<string, string>[] = [
      // What a cross-site form post sends: the cookie only (SameSite aside), no custom header.
      { cookie, origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' },
      { cookie, 'sec-fetch-site': 'same-origin' },
      { cookie, 'x-adnet-cabinet': '1', 'sec-fetch-site': 'cross-site' },
      { cookie, 'x-adnet-cabinet': '1', 'sec-fetch-site': 'same-site' },
      { cookie, 'x-adnet-cabinet': '1', origin: 'https://evil.example' },
      { cookie, 'x-adnet-cabinet': '1' },
    ];
    for (const headers of attempts) {
      const r = await trpc('POST', 'auth.logout', headers, {});
      expect(r.status, JSON.stringify(headers)).toBe(403);
      expect((r.body as { error: { data: { appCode: string } } }).error.data.appCode).toBe('forbidden');
      expect(r.setCookie).toEqual([]);
    }
    expect((await me(cookie)).status).toBe(200);
  });

  it('never carry an API key', async () => {
    const adv = await account(fx.app, 'advertiser');
    const key = (
      await call<{ key: string }>(fx.app, 'POST', '/api/keys', {
        token: adv.token,
        json: { name: 'ci', scopes: ['read'] },
      })
    ).body.key;
    expect(key.startsWith('adn_')).toBe(true);
    expect((await me(`adnet_session=${key}`)).status).toBe(401);
    expect((await call(fx.app, 'GET', '/api/auth/me', { token: key })).status).toBe(200);
  });

  it('give way to an Authorization header, which needs no cabinet header', async () => {
    const adv = await account(fx.app, 'advertiser');
    const pub = await account(fx.app, 'publisher');
    const { cookie } = await cookieSignIn(pub);
    const r = await trpc('GET', 'auth.me', { cookie, authorization: `Bearer ${adv.token}` });
    expect((r.body as { result: { data: { email: string } } }).result.data.email).toBe(adv.email);
  });
});

describe('signing out', () => {
  it('revokes the token and clears the cookie', async () => {
    const adv = await account(fx.app, 'advertiser');
    const { cookie } = await cookieSignIn(adv);
    const out = await trpc('POST', 'auth.logout', { ...CABINET, cookie }, {});
    expect(out.status).toBe(200);
    expect(out.setCookie).toHaveLength(1);
    expect(out.setCookie[0]).toMatch(/^adnet_session=; Path=\/trpc; Max-Age=0; HttpOnly; SameSite=Strict$/);
    // The old value, if a browser still sent it, no longer signs in, and is cleared again.
    const after = await me(cookie);
    expect(after.status).toBe(401);
    expect(after.setCookie[0]).toMatch(/^adnet_session=; .*Max-Age=0/);
  });

  it('everywhere: revokes every token of the account and clears the cookie', async () => {
    const adv = await account(fx.app, 'advertiser');
    const other = (
      await call<{ token: string }>(fx.app, 'POST', '/api/auth/token', {
        json: { email: adv.email, password: 'password-123' },
      })
    ).body.token;
    const { cookie } = await cookieSignIn(adv);
    const out = await trpc('POST', 'auth.logoutAll', { ...CABINET, cookie }, {});
    expect(out.status).toBe(200);
    expect(out.setCookie[0]).toMatch(/^adnet_session=; .*Max-Age=0/);
    expect((await me(cookie)).status).toBe(401);
    for (const token of [other, adv.token])
      expect((await call(fx.app, 'GET', '/api/auth/me', { token })).status).toBe(401);
  });

  it('with a bearer token sets no cookie', async () => {
    const adv = await account(fx.app, 'advertiser');
    const r = await fetch(`${fx.app.base}/api/auth/logout`, {
      method: 'POST',
      headers: { authorization: `Bearer ${adv.token}` },
    });
    expect(r.status).toBe(200);
    expect(r.headers.getSetCookie()).toEqual([]);
  });
});
