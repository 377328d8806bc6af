import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';

export interface TestRedis {
  url: string;
  port: number;
  dir: string;
  /** SHUTDOWN (AOF flushed) then start again on the same port and folder. */
  restart(): Promise<void>;
  /** SIGSTOP: the server hangs with its connections open, as a frozen Redis does. */
  freeze(): void;
  /** SIGCONT after `freeze`. */
  thaw(): void;
  /** SHUTDOWN (AOF flushed), leaving it down until `start`. */
  halt(): Promise<void>;
  /** Starts it again after `halt`, on the same port and folder. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** Listens on `port` (0: any the kernel picks) and closes again: the port it got, or undefined when taken. */
const listenOnce = (port: number): Promise<number | undefined> =>
  new Promise((resolve) => {
    const srv = createServer();
    srv.once('error', () => resolve(undefined));
    srv.listen(port, '127.0.0.1', () => {
      const got = (srv.address() as { port: number }).port;
      srv.close(() => resolve(got));
    });
  });

export async function freePort(): Promise<number> {
  const port = await listenOnce(0);
  if (port === undefined) throw new Error('no free port');
  return port;
}

/**
 * `count` consecutive free ports, for a process that takes a base port and the ones after it (the launcher's
 * METRICS_PORT, engine i on METRICS_PORT + 1 + i). Below the kernel's ephemeral range (32768 and up on Linux):
 * there the next port the kernel hands a parallel test's listen(0) is very often base + 1, which then was not
 * free when the engine bound it.
 */
export async function freePortRun(count: number): Promise<number> {
  for (;;) {
    const base = 20_000 + Math.floor(Math.random() * (32_000 - 20_000 - count));
    let free = true;
    for (let i = 0; i < count && free; i++) free = (await listenOnce(base + i)) !== undefined;
    if (free) return base;
  }
}

async function waitReady(url: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const c = new Redis(url, { lazyConnect: true, retryStrategy: () => null, maxRetriesPerRequest: 0 });
    c.on('error', () => undefined);
    try {
      await c.connect();
      if ((await c.ping()) === 'PONG') return;
    } catch {
      // not up yet
    } finally {
      c.disconnect();
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`redis at ${url} did not start`);
}

/** A private redis-server (AOF on) on a free port in a temp folder: tests may restart it. */
export async function startRedis(): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'adnet-redis-'));
  const url = `redis://127.0.0.1:${port}`;
  let child: ChildProcess;
  const launch = async () => {
    child = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''],
      { stdio: 'ignore' },
    );
    await waitReady(url);
  };
  const shutdown = async () => {
    const exited = new Promise((r) => child.once('exit', r));
    const c = new Redis(url, { retryStrategy: () => null, maxRetriesPerRequest: 0 });
    c.on('error', () => undefined);
    await c.call('SHUTDOWN').catch(() => undefined);
    c.disconnect();
    await exited;
  };
  await launch();
  return {
    url,
    port,
    dir,
    restart: async () => {
      await shutdown();
      await launch();
    },
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
    halt: shutdown,
    start: launch,
    stop: async () => {
      await shutdown();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A Redis of the calling test file's own and one client on it, started before its tests and stopped after
 * them (vitest's beforeAll/afterAll): read `redis` and `server` inside the tests.
 */
export function redisForTests(): { readonly redis: Redis; readonly server: TestRedis } {
  let server: TestRedis | undefined;
  let redis: Redis | undefined;
  beforeAll(async () => {
    server = await startRedis();
    redis = new Redis(server.url);
  });
  afterAll(async () => {
    await redis?.quit();
    await server?.stop();
  });
  return {
    get redis() {
      if (!redis) throw new Error('redisForTests: read inside a test');
      return redis;
    },
    get server() {
      if (!server) throw new Error('redisForTests: read inside a test');
      return server;
    },
  };
}
