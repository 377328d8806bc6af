import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@adnet/test-support/engine';
import { freePort, startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { launch, stopLaunched, tempDir } from './support/launch.ts';
import type { Running } from './support/launch.ts';

// The product as `pnpm start` runs it, with an internal failure provoked from outside: the accounts'
// email index made a string, so reading it fails inside the Redis driver.
let redis: TestRedis;
let run: Running;

beforeAll(async () => {
  redis = await startRedis();
  run = await launch({
    DATA_DIR: tempDir(),
    PORT: String(await freePort()),
    REDIS_URL: redis.url,
    NODE_ENV: 'development',
  });
  const r = new Redis(redis.url);
  await r.set('{users}:email', 'not a hash');
  await r.quit();
}, 60_000);
afterAll(async () => {
  await stopLaunched();
  await redis?.stop();
});

const INTERNALS = /WRONGTYPE|ReplyError|\bat .*\.ts:\d+|node_modules|stack/i;

/** The error-level log lines of one request. */
const loggedErrors = (requestId: string): string =>
  run
    .out()
    .split('\n')
    .filter((l) => l.includes(`"requestId":"${requestId}"`) && l.includes('"level":50'))
    .join('\n');

describe('pnpm start answers errors in production mode', () => {
  it('REST: a 500 carries the generic text and the request id, the log the details under that id', async () => {
    const res = await fetch(`${run.base}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'rest-failure-1' },
      body: JSON.stringify({ email: 'someone@example.com', password: 'whatever-1' }),
    });
    const text = await res.text();
    expect(res.status).toBe(500);
    expect(JSON.parse(text)).toEqual({
      error: 'Internal server error',
      code: 'internal',
      request_id: 'rest-failure-1',
    });
    expect(res.headers.get('x-request-id')).toBe('rest-failure-1');
    expect(text).not.toMatch(INTERNALS);
    // The log line is the child's stdout: it may arrive a moment after the answer.
    await eventually(() => /WRONGTYPE/.test(loggedErrors('rest-failure-1')), 5_000);
  });

  it('tRPC: no stack trace and no internal text, with the request id', async () => {
    const res = await fetch(`${run.base}/trpc/auth.token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'trpc-failure-1' },
      body: JSON.stringify({ email: 'someone@example.com', password: 'whatever-1' }),
    });
    const text = await res.text();
    expect(res.status).toBe(500);
    const body = JSON.parse(text) as { error: { message: string; data: Record<string, unknown> } };
    expect(body.error.message).toBe('Internal server error');
    expect(body.error.data).toMatchObject({ httpStatus: 500, appCode: 'internal', requestId: 'trpc-failure-1' });
    expect(body.error.data).not.toHaveProperty('stack');
    expect(text).not.toMatch(INTERNALS);
    await new Promise((r) => setTimeout(r, 200));
    await eventually(() => /WRONGTYPE/.test(loggedErrors('trpc-failure-1')), 5_000);
  });

  it('a 4xx keeps its own words, still without internals', async () => {
    const res = await fetch(`${run.base}/trpc/auth.token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":1}',
    });
    expect(res.status).toBe(400);
    const text = await res.text();
    expect(text).not.toMatch(INTERNALS);
    expect((JSON.parse(text) as { error: { data: { fields: Record<string, string> } } }).error.data.fields).toEqual({
      email: expect.any(String),
      password: 'is required',
    });
  });
});
