import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawRequest } from '@adnet/test-support/raw-http';
import { startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';

// Regressions the hostile-input suite found in the engine's proxy to the admin.

let redis: TestRedis;
let engine: TestEngine;
let upstream: Server;
const seen: IncomingMessage[] = [];

beforeAll(async () => {
  upstream = createServer((req, res) => {
    seen.push(req);
    // As the admin answers the cabinet's sign-in: cookies the proxy must hand on one by one.
    if (req.url === '/trpc/auth.session')
      res.setHeader('set-cookie', ['adnet_session=1|abc; Path=/trpc; HttpOnly; SameSite=Strict', 'other=2; Path=/']);
    res
      .writeHead(200, { 'content-type': 'application/json', 'x-request-id': String(req.headers['x-request-id']) })
      .end('{"ok":true}');
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  redis = await startRedis();
  engine = await startEngine(
    redis.url,
    {},
    { adminUpstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
  );
});
afterAll(async () => {
  await engine?.stop();
  await redis?.stop();
  upstream?.close();
});

describe("the engine's proxy to the admin", () => {
  it('passes a header holding UTF-8 text on byte for byte (it used to throw in the handler and never answer)', async () => {
    // uWS trims bytes past ASCII from both ends of a value; inside one they pass.
    const value = 'x Ω≈ç a\u2028b 𓐣 x';
    const res = await rawRequest(
      engine.base,
      {
        method: 'GET',
        target: '/api/auth/me',
        headers: [
          ['accept', value],
          ['x-note', Buffer.from([0x41, 0xc3, 0x41])],
        ],
      },
      3_000,
    );
    expect(res.status).toBe(200);
    const got = seen.at(-1)?.headers;
    // Node reads header bytes as Latin-1: the bytes are the UTF-8 the client sent.
    expect(Buffer.from(String(got?.accept), 'latin1').toString('utf8')).toBe(value);
    // Bytes that are no UTF-8 arrive as U+FFFD (uWS decodes them): still answered.
    expect(Buffer.from(String(got?.['x-note']), 'latin1').toString('utf8')).toBe('A\ufffdA');
  });

  it('answers methods fetch cannot send with 405 and Allow (they were a 502), and does not pass Expect on', async () => {
    // uWS itself closes the connection on TRACK.
    for (const method of ['TRACE', 'CONNECT']) {
      const res = await rawRequest(engine.base, { method, target: '/api/auth/me', headers: [] }, 3_000);
      expect(res.status, method).toBe(405);
      expect(res.headers.get('allow')).toContain('GET');
      expect(JSON.parse(res.body.toString())).toEqual({
        error: `${method} is not served here`,
        code: 'method_not_allowed',
      });
    }
    const res = await rawRequest(
      engine.base,
      { method: 'POST', target: '/api/auth/token', headers: [['expect', '100-continue']], body: Buffer.from('{}') },
      3_000,
    );
    expect(res.status).toBe(200);
    expect(seen.at(-1)?.headers.expect).toBeUndefined();
  });

  it('gives its own answers a request id, and passes the one it made to the admin', async () => {
    const refused = await rawRequest(
      engine.base,
      { method: 'TRACE', target: '/x', headers: [['x-request-id', 'trace-1']] },
      3_000,
    );
    expect(refused.headers.get('x-request-id')).toBe('trace-1');
    expect(refused.headers.get('x-content-type-options')).toBe('nosniff');
    const passed = await rawRequest(engine.base, { method: 'GET', target: '/api/auth/me', headers: [] }, 3_000);
    const id = passed.headers.get('x-request-id');
    expect(id).toMatch(/-/);
    expect(seen.at(-1)?.headers['x-request-id']).toBe(id);
  });

  it("passes the cabinet's cookies both ways, each Set-Cookie on its own", async () => {
    const signIn = await fetch(`${engine.base}/trpc/auth.session`, { method: 'POST', body: '{}' });
    expect(signIn.status).toBe(200);
    expect(signIn.headers.getSetCookie()).toEqual([
      'adnet_session=1|abc; Path=/trpc; HttpOnly; SameSite=Strict',
      'other=2; Path=/',
    ]);
    await fetch(`${engine.base}/trpc/auth.me`, { headers: { cookie: 'adnet_session=1|abc; other=2' } });
    expect(seen.at(-1)?.headers.cookie).toBe('adnet_session=1|abc; other=2');
  });

  it('passes X-Forwarded-Proto on from a trusted proxy only: a client reaching the engine itself came over http', async () => {
    // This engine trusts loopback (testing/src/engine.ts), as when a TLS proxy runs beside it.
    await fetch(`${engine.base}/trpc/auth.me`, { headers: { 'x-forwarded-proto': 'https' } });
    expect(seen.at(-1)?.headers['x-forwarded-proto']).toBe('https');
    const exposed = await startEngine(
      redis.url,
      { TRUSTED_PROXIES: '192.0.2.1' },
      { adminUpstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` },
    );
    try {
      await fetch(`${exposed.base}/trpc/auth.me`, { headers: { 'x-forwarded-proto': 'https' } });
      expect(seen.at(-1)?.headers['x-forwarded-proto']).toBe('http');
      await fetch(`${exposed.base}/trpc/auth.me`);
      expect(seen.at(-1)?.headers['x-forwarded-proto']).toBe('http');
    } finally {
      await exposed.stop();
    }
  });
});
