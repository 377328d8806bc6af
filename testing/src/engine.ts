import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ENGINE_SLICES, loadConfig, pickSlices } from '@adnet/schemas/config';
import type { EventFields } from '@adnet/schemas/events';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { decodeEntry } from '@adnet/schemas/wire/event-stream';
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import type { Logger } from 'pino';
import { freePort } from './redis.ts';
import { createEngine } from '@adnet/engine/engine';
import type { Engine } from '@adnet/engine/engine';

export interface TestEngine {
  engine: Engine;
  base: string;
  stop(): Promise<void>;
}

/** A real engine (native uWS, real Redis) on a free port; with `adminUpstream`, it forwards other paths there as in `pnpm start`. */
export async function startEngine(
  redisUrl: string,
  env: Record<string, string> = {},
  opts: { adminUpstream?: string; log?: Logger } = {},
): Promise<TestEngine> {
  // The port is fixed before start (tracking links carry the public base URL), so another test may
  // take it in between: then start again on another one.
  for (let attempt = 1; ; attempt++) {
    const config = pickSlices(
      loadConfig({
        REDIS_URL: redisUrl,
        PORT: String(await freePort()),
        LOG_LEVEL: 'silent',
        TRACKING_SECRET: 't'.repeat(40),
        EVENT_FLUSH_MS: '20',
        // As behind the proxy a deployment puts in front: loopback's X-Forwarded-For and country headers are believed.
        TRUSTED_PROXIES: '127.0.0.1',
        // Each engine journals into a folder of its own unless the test shares one (redis-outage.test.ts).
        JOURNAL_DIR: mkdtempSync(join(tmpdir(), 'adnet-journal-')),
        // Tests read what a request counted as soon as it is answered: on two busy cores a request may wait on Redis
        // past the product's 50 ms and be answered before it is counted. The outage test sets the product's figure.
        REDIS_DEADLINE_MS: '2000',
        ...env,
      }),
      ENGINE_SLICES,
    );
    // TEST_ENGINE_LOG=warn shows the engines' error lines when a test needs explaining.
    const log = opts.log ?? pino({ level: process.env.TEST_ENGINE_LOG ?? 'silent' });
    const engine = await createEngine({ config, redisUrl, log, adminUpstream: opts.adminUpstream });
    try {
      const port = await engine.listen(config.server.port, '127.0.0.1');
      return { engine, base: `http://127.0.0.1:${port}`, stop: () => engine.stop() };
    } catch (err) {
      await engine.stop();
      if (attempt >= 3 || env.PORT) throw err;
    }
  }
}

/**
 * Waits until the engine serves `zone` with `candidates` campaigns in its index, then a moment more for its first
 * budget slices, so that a test's first ad request is answered as any later one would be.
 */
export async function servingZone(engine: TestEngine, zone: string, candidates: number): Promise<void> {
  await eventually(
    () =>
      engine.engine.mirror.index?.zones.get(zone)?.serving === true &&
      engine.engine.mirror.index.candidateCount === candidates,
  );
  await new Promise((r) => setTimeout(r, 300));
}

/** Waits until `check` holds, polling every 10 ms (for propagation through Redis). */
export async function eventually(check: () => boolean | Promise<boolean>, timeoutMs = 5_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < timeoutMs) {
    if (await check()) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('condition not met in time');
}

export async function postBid(
  base: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> | string; headers: Headers }> {
  const res = await fetch(`${base}/openrtb/bid`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-openrtb-version': '2.5', ...headers },
    body: typeof body === 'string' || Buffer.isBuffer(body) ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return {
    status: res.status,
    body:
      text && (res.headers.get('content-type') ?? '').includes('json')
        ? (JSON.parse(text) as Record<string, unknown>)
        : text,
    headers: res.headers,
  };
}

/** Every event in the stream, each seen flat as the event store sees it; with `engine`, after its batcher has flushed what it holds. */
export async function streamedEvents(redis: Pick<Redis, 'xrangeBuffer'>, engine?: TestEngine): Promise<EventFields[]> {
  await engine?.engine.events.flush();
  const entries = await redis.xrangeBuffer(EVENT_STREAM, '-', '+');
  return entries.flatMap(([, fields]) => decodeEntry(fields));
}
