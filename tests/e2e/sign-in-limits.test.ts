import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { account, startApp, uniqueEmail } from './support/admin.ts';
import type { Account, TestApp } from './support/admin.ts';
import { startEngine } from './support/engine.ts';
import type { TestEngine } from './support/engine.ts';
import { startRedis } from './support/redis.ts';
import type { TestRedis } from './support/redis.ts';

// Clients reach the engine from distinct loopback addresses (Linux answers all of 127/8), as
// visitors from distinct addresses reach a public engine; the engine forwards sign-ins to the admin.
const ATTACKER = '127.0.0.2';
const VISITOR = '127.0.0.3';
const PER_ADDRESS = 5;

interface Answer {
  status: number;
  retryAfter: string | undefined;
}

function signIn(base: string, from: string, email: string, password: string, headers: Record<string, string> = {}): Promise<Answer> {
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
    for (let i = 0; i < PER_ADDRESS + 2; i++) attacks.push((await signIn(engine.base, ATTACKER, victim.email, `guess-${i}`)).status);
    expect(attacks.slice(0, PER_ADDRESS)).toEqual(Array(PER_ADDRESS).fill(401));
    expect(attacks.slice(PER_ADDRESS)).toEqual([429, 429]);
    // The attacker's address is spent, for any account.
    expect((await signIn(engine.base, ATTACKER, bystander.email, 'password-123')).status).toBe(429);
    // Everyone else signs in as before, through the same engine and admin.
    expect((await signIn(engine.base, VISITOR, bystander.email, 'password-123')).status).toBe(200);
  });

  it('the attacked account itself waits after five failures, whatever address the guesses come from', async () => {
    const target = await account(app, 'advertiser');
    const spread = ['127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7', '127.0.0.8', '127.0.0.9'];
    for (const from of spread) expect((await signIn(engine.base, from, target.email, 'not-the-password')).status).toBe(401);
    const right = await signIn(engine.base, '127.0.0.10', target.email, 'password-123');
    expect(right.status).toBe(429);
    expect(Number(right.retryAfter)).toBeGreaterThanOrEqual(1);
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
      statuses.push((await signIn(engine.base, '127.0.0.30', uniqueEmail('probe'), 'whatever-1', { 'x-forwarded-for': `198.51.100.${i + 1}` })).status);
    }
    expect(statuses).toEqual([...Array(PER_ADDRESS).fill(401), 429]);
    expect((await signIn(engine.base, '127.0.0.31', uniqueEmail('probe'), 'whatever-1')).status).toBe(401);
  });

  it('is ignored when sent to the admin directly by a peer that is no trusted proxy', async () => {
    const from = '127.0.0.20';
    const statuses: number[] = [];
    for (let i = 0; i < PER_ADDRESS + 1; i++) {
      statuses.push((await signIn(app.base, from, uniqueEmail('probe'), 'whatever-1', { 'x-forwarded-for': `203.0.113.${i + 1}` })).status);
    }
    expect(statuses).toEqual([...Array(PER_ADDRESS).fill(401), 429]);
  });
});
