import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, startApp, uniqueEmail } from '@adnet/test-support/admin';
import type { Account, TestApp } from '@adnet/test-support/admin';
import { startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';

// Clients reach the engine from distinct loopback addresses (Linux answers all of 127/8), as
// visitors from distinct addresses reach a public engine; the engine forwards sign-ins to the admin.
const ATTACKER = '127.0.0.2';
const VISITOR = '127.0.0.3';
const PER_ADDRESS = 5;

interface Answer {
  status: number;
  retryAfter: string | undefined;
}

/** Signs in from the local address `from`, with `headers` added to the request. */
function signIn(
  base: string,
  from: string,
  { email, password }: { email: string; password: string },
  headers: Record<string, string> = {},
): Promise<Answer> {
  const body = JSON.stringify({ email, password });
  return new Promise((resolve, reject) => {
    const req = request(
      `${base}/api/auth/token`,
      {
        method: 'POST',
        localAddress: from,
        agent: false,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve({ status: res.statusCode ?? 0, retryAfter: res.headers['retry-after'] }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

let redis: TestRedis;
const stops: (() => Promise<void>)[] = [];

async function adminBehindEngine(env: Record<string, string> = {}): Promise<{ app: TestApp; engine: TestEngine }> {
  const app = await startApp(redis.url, { AUTH_RATE_LIMIT_PER_MIN: String(PER_ADDRESS), ...env });
  const engine = await startEngine(redis.url, {}, { adminUpstream: app.base });
  stops.push(
    () => engine.stop(),
    () => app.close(),
  );
  return { app, engine };
}

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const stop of stops.reverse()) await stop();
  await redis?.stop();
});

describe("sign-in limits behind the engine's proxy", () => {
  let app: TestApp;
  let engine: TestEngine;
  let victim: Account;
  let bystander: Account;

  beforeAll(async () => {
    ({ app, engine } = await adminBehindEngine());
    victim = await account(app, 'advertiser');
    bystander = await account(app, 'publisher');
  });

  it("one client's wrong passwords lock out neither another user nor another address", async () => {
    const attacks: number[] = [];
    for (let i = 0; i < PER_ADDRESS + 2; i++)
      attacks.push((await signIn(engine.base, ATTACKER, { email: victim.email, password: `guess-${i}` })).status);
    expect(attacks.slice(0, PER_ADDRESS)).toEqual(Array(PER_ADDRESS).fill(401));
    expect(attacks.slice(PER_ADDRESS)).toEqual([429, 429]);
    // The attacker's address is spent, for any account.
    expect((await signIn(engine.base, ATTACKER, { email: bystander.email, password: 'password-123' })).status).toBe(
      429,
    );
    // Everyone else signs in as before, through the same engine and admin.
    expect((await signIn(engine.base, VISITOR, { email: bystander.email, password: 'password-123' })).status).toBe(200);
  });

  // Clients behind a trusted proxy: the engine's peers are loopback addresses, which the admin trusts
  // by default (ADMIN_TRUSTED_PROXIES), so the client is the address that proxy wrote into the header.
  const via = (client: string) => ({ 'x-forwarded-for': client });

  it("an attacker's failures delay only the attacker's network: the owner signs in from another", async () => {
    const owner = await account(app, 'advertiser');
    // Each guess from another address of one /24, so the per-address limit never answers first.
    const guesses: Answer[] = [];
    for (let i = 1; i <= 7; i++)
      guesses.push(
        await signIn(engine.base, '127.0.0.11', { email: owner.email, password: `guess-${i}` }, via(`198.51.100.${i}`)),
      );
    expect(guesses.map((g) => g.status)).toEqual([401, 401, 401, 401, 401, 401, 429]);
    expect(Number(guesses[6]?.retryAfter)).toBeGreaterThanOrEqual(1);
    // The attacker's network waits, whichever of its addresses it uses, the right password included.
    expect(
      (await signIn(engine.base, '127.0.0.11', { email: owner.email, password: 'password-123' }, via('198.51.100.200')))
        .status,
    ).toBe(429);
    // The owner, elsewhere, is not kept out.
    expect(
      (await signIn(engine.base, '127.0.0.12', { email: owner.email, password: 'password-123' }, via('203.0.113.9')))
        .status,
    ).toBe(200);
    expect(
      (
        await signIn(
          engine.base,
          '127.0.0.12',
          { email: owner.email, password: 'password-123' },
          via('2001:db8:7:7::1'),
        )
      ).status,
    ).toBe(200);
  });

  it('guessing spread over many networks meets the account-wide limit, which spares networks that signed in before', async () => {
    const owner = await account(app, 'advertiser');
    expect(
      (await signIn(engine.base, '127.0.0.13', { email: owner.email, password: 'password-123' }, via('203.0.113.77')))
        .status,
    ).toBe(200);
    // Ten networks, five guesses each: none reaches its own back-off. The owner's two sign-ins above
    // (the helper's and this one) were two of the account's 50 attempts in the window.
    const statuses: number[] = [];
    for (let n = 0; n < 10; n++) {
      for (let i = 1; i <= 5; i++)
        statuses.push(
          (
            await signIn(
              engine.base,
              '127.0.0.14',
              { email: owner.email, password: `guess-${n}-${i}` },
              via(`192.0.${n}.${i}`),
            )
          ).status,
        );
    }
    expect(statuses).toEqual([...Array(48).fill(401), 429, 429]);
    // A network the account has never seen waits for the window, the right password included.
    const fresh = await signIn(
      engine.base,
      '127.0.0.15',
      { email: owner.email, password: 'password-123' },
      via('198.18.0.1'),
    );
    expect(fresh.status).toBe(429);
    expect(Number(fresh.retryAfter)).toBeGreaterThan(60);
    expect(Number(fresh.retryAfter)).toBeLessThanOrEqual(15 * 60);
    // A network the owner signed in from still may, from another address of its /24.
    expect(
      (await signIn(engine.base, '127.0.0.13', { email: owner.email, password: 'password-123' }, via('203.0.113.78')))
        .status,
    ).toBe(200);
    // Another email is untouched: the fresh network is answered on its password.
    expect(
      (
        await signIn(
          engine.base,
          '127.0.0.15',
          { email: uniqueEmail('other'), password: 'password-123' },
          via('198.18.0.2'),
        )
      ).status,
    ).toBe(401);
  });
});

describe('X-Forwarded-For from an untrusted peer', () => {
  let app: TestApp;
  let engine: TestEngine;

  beforeAll(async () => {
    // Only the engine's own address is a trusted proxy: clients on other loopback addresses are not.
    ({ app, engine } = await adminBehindEngine({ ADMIN_TRUSTED_PROXIES: '127.0.0.1' }));
  });

  it('is ignored when sent to the engine: the engine appends the real peer and the admin stops there', async () => {
    // Addresses of their own: the limits live in the Redis both admins share.
    const statuses: number[] = [];
    for (let i = 0; i < PER_ADDRESS + 1; i++) {
      statuses.push(
        (
          await signIn(
            engine.base,
            '127.0.0.30',
            { email: uniqueEmail('probe'), password: 'whatever-1' },
            {
              'x-forwarded-for': `198.51.100.${i + 1}`,
            },
          )
        ).status,
      );
    }
    expect(statuses).toEqual([...Array(PER_ADDRESS).fill(401), 429]);
    expect(
      (await signIn(engine.base, '127.0.0.31', { email: uniqueEmail('probe'), password: 'whatever-1' })).status,
    ).toBe(401);
  });

  it('is ignored when sent to the admin directly by a peer that is no trusted proxy', async () => {
    const from = '127.0.0.20';
    const statuses: number[] = [];
    for (let i = 0; i < PER_ADDRESS + 1; i++) {
      statuses.push(
        (
          await signIn(
            app.base,
            from,
            { email: uniqueEmail('probe'), password: 'whatever-1' },
            { 'x-forwarded-for': `203.0.113.${i + 1}` },
          )
        ).status,
      );
    }
    expect(statuses).toEqual([...Array(PER_ADDRESS).fill(401), 429]);
  });
});
