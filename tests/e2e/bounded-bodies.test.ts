import { connect } from 'node:net';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import { eventually, postBid, startEngine } from '@adnet/test-support/engine';
import type { TestEngine } from '@adnet/test-support/engine';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import { World, bannerRequest } from '@adnet/test-support/world';

// Request bodies are held within a per-request limit (413) and a per-process budget (503 with
// Retry-After), both decided before the body is read: bodies that would pass the budget are refused,
// not buffered, and the servers answer normally once the held ones are gone.

const KIB = 1024;
// The admin takes bodies up to IMAGE_MAX_BYTES + 256 KiB = 320 KiB; each process holds at most 512 KiB
// of bodies (the engine: half for its own routes, half for the proxy).
const ENV = { IMAGE_MAX_BYTES: String(64 * KIB), BODY_BYTES_IN_FLIGHT_MAX: String(512 * KIB) };
const ENGINE_ENV = { ...ENV, BODY_BYTES_IN_FLIGHT_MAX: String(1024 * KIB) };
let redis: TestRedis;
let app: TestApp;
let engine: TestEngine;

beforeAll(async () => {
  redis = await startRedis();
  app = await startApp(redis.url, ENV);
  engine = await startEngine(redis.url, ENGINE_ENV, { adminUpstream: app.base });
  const world = await World.create(app);
  await world.partner();
  await world.campaign(await world.advertiser(100_000), { format: 'banner', bid_usd: 2 });
  await eventually(() => engine.engine.mirror.index?.candidateCount === 1);
}, 60_000);
afterAll(async () => {
  await engine?.stop();
  await app?.close();
  await redis?.stop();
});

interface Upload {
  socket: Socket;
  /** Everything the server sent back so far. */
  answer(): string;
  /** Resolves once the server has answered (its status line and headers arrived). */
  answered: Promise<string>;
}

/** A POST whose head declares `length` bytes, of which only `sent` are sent: the body stays in flight until the socket is closed. */
function upload(
  base: string,
  path: string,
  { length, sent, headers = {} }: { length: number; sent: number; headers?: Record<string, string> },
): Promise<Upload> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const head = Object.entries({
        host: hostname,
        'content-type': 'application/json',
        'content-length': String(length),
        ...headers,
      })
        .map(([k, v]) => `${k}: ${v}\r\n`)
        .join('');
      socket.write(`POST ${path} HTTP/1.1\r\n${head}\r\n`);
      if (sent > 0) socket.write(Buffer.alloc(sent, 0x20));
      // Time for the server to parse the head and take its share before the next request is made.
      setTimeout(() => resolve({ socket, answer: () => text, answered }), 50);
    });
    let text = '';
    const answered = new Promise<string>((done) => {
      socket.on('data', (c: Buffer) => {
        text += c.toString('latin1');
        if (text.includes('\r\n\r\n')) done(text);
      });
      socket.on('close', () => done(text));
      // A server that keeps reading instead of refusing gives no answer: the test sees none.
      setTimeout(() => done(text), 5_000).unref();
    });
    socket.on('error', reject);
  });
}

const statusOf = (text: string) => /^HTTP\/1\.1 (\d{3})/.exec(text)?.[1];
const closeAll = async (uploads: Upload[]) => {
  for (const u of uploads) u.socket.destroy();
  await new Promise((r) => setTimeout(r, 100));
};

describe('the admin', () => {
  it('REST and tRPC: 413 past the per-request limit and 503 with Retry-After past the budget, before the body is read; normal again after', async () => {
    const tooBig = await upload(app.base, '/api/auth/token', { length: 300 * KIB, sent: 0 });
    expect(statusOf(await tooBig.answered)).toBe('413');
    const held = [
      await upload(app.base, '/api/auth/token', { length: 200 * KIB, sent: KIB }),
      await upload(app.base, '/trpc/auth.token', { length: 200 * KIB, sent: KIB }),
    ];
    for (const path of ['/api/auth/token', '/trpc/auth.token']) {
      const refused = await upload(app.base, path, { length: 200 * KIB, sent: 0 });
      const text = await refused.answered;
      expect(statusOf(text), path).toBe('503');
      expect(text.toLowerCase()).toContain('retry-after: 1');
      expect(text.toLowerCase()).toContain('connection: close');
      refused.socket.destroy();
    }
    // The held uploads got no answer yet: they are still being read, within their share.
    expect(held.map((u) => u.answer())).toEqual(['', '']);
    await closeAll(held);
    const again = await fetch(`${app.base}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: 'x'.repeat(200 * KIB),
    });
    expect(again.status).toBe(400);
  });
});

describe('the engine', () => {
  it('its proxy refuses past the limit and the budget without buffering, while bids keep their own room', async () => {
    const tooBig = await upload(engine.base, '/api/auth/token', { length: 400 * KIB, sent: 0 });
    expect(statusOf(await tooBig.answered)).toBe('413');
    const held = [
      await upload(engine.base, '/api/auth/token', { length: 250 * KIB, sent: KIB }),
      await upload(engine.base, '/api/auth/token', { length: 250 * KIB, sent: KIB }),
    ];
    const refused = await upload(engine.base, '/api/auth/token', { length: 100 * KIB, sent: 0 });
    const text = await refused.answered;
    expect(statusOf(text)).toBe('503');
    expect(text.toLowerCase()).toContain('retry-after: 1');
    expect(text.toLowerCase()).toContain('x-content-type-options: nosniff');
    // The proxy's half is full; the bid route's half is not.
    expect((await postBid(engine.base, bannerRequest())).status).toBe(200);
    await closeAll([...held, refused]);
    const again = await fetch(`${engine.base}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(again.status).toBe(400);
  });

  it('bids past their half get 503 with Retry-After; then bids are answered again', async () => {
    // Eight slow 60 KiB bid bodies hold 480 of the routes' 512 KiB.
    const held: Upload[] = [];
    for (let i = 0; i < 8; i++)
      held.push(
        await upload(engine.base, '/openrtb/bid', {
          length: 60 * KIB,
          sent: KIB,
          headers: { 'x-openrtb-version': '2.5' },
        }),
      );
    const refused = await upload(engine.base, '/openrtb/bid', {
      length: 60 * KIB,
      sent: 0,
      headers: { 'x-openrtb-version': '2.5' },
    });
    const text = await refused.answered;
    expect(statusOf(text)).toBe('503');
    expect(text.toLowerCase()).toContain('retry-after: 1');
    await closeAll([...held, refused]);
    expect((await postBid(engine.base, bannerRequest())).status).toBe(200);
  });

  it('many concurrent large bodies: those past the budget are refused, every answer is 400 or 503, the engine answers after', async () => {
    const body = JSON.stringify({ email: 'a@example.com', password: 'x'.repeat(250 * KIB) });
    const answers = await Promise.all(
      Array.from({ length: 24 }, () =>
        fetch(`${engine.base}/api/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        }).then(
          (r) => r.status,
          () => 0,
        ),
      ),
    );
    // What got room was answered by the admin (the password is too long: 400); the rest was refused.
    expect(new Set(answers.filter((s) => s !== 400 && s !== 503 && s !== 0))).toEqual(new Set());
    expect(answers.filter((s) => s === 503).length).toBeGreaterThan(0);
    expect(answers.filter((s) => s === 400).length).toBeGreaterThan(0);
    expect((await postBid(engine.base, bannerRequest())).status).toBe(200);
    expect(
      (
        await fetch(`${engine.base}/api/auth/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: '{}',
        })
      ).status,
    ).toBe(400);
  });
});
