import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ADMIN_SLICES, loadConfig, pickSlices } from '@adnet/schemas/config';
import type { Role } from '@adnet/schemas/api';
import { createAdmin } from '@adnet/admin';
import type { Admin, AdminPart } from '@adnet/admin';
import { createLogger } from '@adnet/admin/log';
import type { Logger } from '@adnet/admin/log';
import { createAccount } from '@adnet/admin/accounts';
import type { Services } from '@adnet/admin/services';
import { afterAll, beforeAll } from 'vitest';
import { makePng } from './images.ts';
import { freePort, startRedis } from './redis.ts';
import type { TestRedis } from './redis.ts';

export interface TestApp {
  base: string;
  svc: Services;
  admin: Admin;
  close(): Promise<void>;
}

/** What the API helpers need of an app: its base URL and services on its Redis (a launched product's too). */
export type AppLike = Pick<TestApp, 'base' | 'svc'>;

export interface AppOptions {
  /** Embedded chDB, migrated. */
  clickhouse?: boolean;
  cabinetDir?: string;
  /** The parts `pnpm start` runs beside the server; none unless asked, since most tests drive workers by hand. */
  parts?: readonly AdminPart[];
  /** Where the admin logs (default: stdout at LOG_LEVEL); a test that reads the log passes its own. */
  log?: Logger;
}

/** The real admin HTTP server on a free port, against the given Redis, built as `pnpm start` builds it. */
export async function startApp(
  redisUrl: string,
  env: Record<string, string> = {},
  opts: AppOptions = {},
): Promise<TestApp> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'adnet-app-'));
  const config = pickSlices(
    loadConfig({
      REDIS_URL: redisUrl,
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'silent',
      AUTH_RATE_LIMIT_PER_MIN: '100000',
      API_RATE_LIMIT_PER_MIN: '100000',
      // Cheap password hashes keep the suites fast; auth.test.ts proves the default stores OWASP's cost.
      PASSWORD_SCRYPT_LOG_N: '12',
      ...env,
    }),
    ADMIN_SLICES,
  );
  const admin = await createAdmin({
    config,
    redisUrl,
    log: opts.log ?? createLogger(config.server.logLevel),
    cabinetDir: opts.cabinetDir,
    clickhouse: opts.clickhouse ?? false,
    parts: opts.parts ?? [],
  });
  await admin.start({ port, host: '127.0.0.1' });
  return {
    base: `http://127.0.0.1:${port}`,
    svc: admin.svc,
    admin,
    async close() {
      await admin.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface Reply<T = Record<string, unknown>> {
  status: number;
  body: T;
  headers: Headers;
}

export interface CallOptions {
  token?: string;
  json?: unknown;
  form?: FormData;
  raw?: { body: string | Buffer; type: string };
  headers?: Record<string, string>;
}

/** One real HTTP request; the body parsed as JSON when it is JSON. */
export async function call<T = Record<string, unknown>>(
  app: AppLike,
  method: string,
  path: string,
  opts: CallOptions = {},
): Promise<Reply<T>> {
  const headers: Record<string, string> = { accept: 'application/json', ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: RequestInit['body'];
  if (opts.json !== undefined) {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(opts.json);
  } else if (opts.form) body = opts.form;
  else if (opts.raw) {
    headers['content-type'] = opts.raw.type;
    body = opts.raw.body;
  }
  const res = await fetch(app.base + path, { method, headers, body });
  const text = await res.text();
  const parsed =
    (res.headers.get('content-type') ?? '').includes('json') && text ? (JSON.parse(text) as T) : (text as T);
  return { status: res.status, body: parsed, headers: res.headers };
}

let seq = 0;
export const uniqueEmail = (prefix = 'user'): string => `${prefix}.${process.pid}.${Date.now()}.${++seq}@example.com`;

export interface Account {
  id: number;
  email: string;
  token: string;
}

/** An account of any role (admin through the same code path as the CLI) with a fresh token. */
export async function account(app: AppLike, role: Role): Promise<Account> {
  const email = uniqueEmail(role);
  const password = 'password-123';
  const user = await createAccount(app.svc, { email, password, role });
  const tok = await call<{ token: string }>(app, 'POST', '/api/auth/token', { json: { email, password } });
  if (tok.status !== 200) throw new Error(`token: ${tok.status}`);
  return { id: user.id, email, token: tok.body.token };
}

/** One account per role given, made at once, in that order: the cast of a test that crosses roles. */
export function accounts<R extends Role[]>(app: AppLike, ...roles: R): Promise<{ [K in keyof R]: Account }> {
  return Promise.all(roles.map((role) => account(app, role))) as Promise<{ [K in keyof R]: Account }>;
}

export const validCampaign = {
  name: 'Spring promo',
  vertical: 'gambling',
  format: 'native',
  bid_type: 'cpm',
  bid_usd: 1.5,
  daily_budget_usd: 50,
  geo_include: ['us', 'de'],
  languages: ['en'],
};

export function creativeForm(
  fields: Record<string, string>,
  image?: { data: Buffer; name: string; type: string },
): FormData {
  const form = new FormData();
  for (const [k, v] of Object.entries(fields)) form.set(k, v);
  if (image) form.set('image', new Blob([image.data], { type: image.type }), image.name);
  return form;
}

/** A native creative with a 200×200 image: what a campaign needs before an admin has something to moderate. */
export function nativeCreativeForm(): FormData {
  return creativeForm(
    {
      title: 'Win big',
      body: 'Spin now',
      landing_url: 'https://offers.example.net/x?cid={click_id}',
      cta_text: 'Play',
    },
    { data: makePng(200, 200), name: 'ad.png', type: 'image/png' },
  );
}

export interface AppFixture {
  app: TestApp;
  redis: TestRedis;
}

/** A private Redis and the admin on it for one test file: started before its tests, stopped after. */
export function useTestApp(env: Record<string, string> = {}, opts: Omit<AppOptions, 'cabinetDir'> = {}): AppFixture {
  const fixture = {} as AppFixture;
  beforeAll(async () => {
    fixture.redis = await startRedis();
    fixture.app = await startApp(fixture.redis.url, env, opts);
  });
  afterAll(async () => {
    await fixture.app?.close();
    await fixture.redis?.stop();
  });
  return fixture;
}
