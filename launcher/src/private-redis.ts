import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { Redis } from 'ioredis';

export interface RedisTarget {
  url: string;
  /** True when this process started the server and so must stop it. */
  owned: boolean;
  stop(): Promise<void>;
}

export class MissingRedisError extends Error {
  constructor() {
    super(
      'REDIS_URL is not set and redis-server is not on PATH. Install Redis 7 ' +
        '(Debian/Ubuntu: `apt-get install redis-server`) or set REDIS_URL=redis://host:port.',
    );
  }
}

function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => res(port));
    });
  });
}

/** True when a Redis server answers PING at `url` (within a second). */
export async function redisAnswers(url: string): Promise<boolean> {
  const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 1000 });
  probe.on('error', () => undefined);
  try {
    await probe.connect();
    return (await probe.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    probe.disconnect();
  }
}

async function stopServer(url: string): Promise<void> {
  const c = new Redis(url, { maxRetriesPerRequest: 0, retryStrategy: () => null });
  c.on('error', () => undefined);
  // SHUTDOWN makes Redis fsync the AOF before it exits; the connection drops as it does.
  await c.call('SHUTDOWN').catch(() => undefined);
  c.disconnect();
}

/**
 * The quickstart's Redis: a private redis-server with its data (AOF on) under
 * `<dataDir>/redis`. A server already running on that folder (say, left by a
 * crash, or started by `pnpm start` while the CLI runs) is reused.
 */
export async function ensurePrivateRedis(dataDir: string): Promise<RedisTarget> {
  const dir = resolve(dataDir, 'redis');
  const urlFile = join(dir, 'redis.url');
  if (existsSync(urlFile)) {
    const url = (await readFile(urlFile, 'utf8')).trim();
    if (await redisAnswers(url)) return { url, owned: false, stop: () => stopServer(url) };
  }
  if (spawnSync('redis-server', ['--version']).error) throw new MissingRedisError();
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const url = `redis://127.0.0.1:${port}`;
  const child = spawn(
    'redis-server',
    [
      '--port',
      String(port),
      '--bind',
      '127.0.0.1',
      '--dir',
      dir,
      '--appendonly',
      'yes',
      '--appendfsync',
      'everysec',
      '--save',
      '',
      '--pidfile',
      join(dir, 'redis.pid'),
      '--logfile',
      join(dir, 'redis.log'),
      '--daemonize',
      'no',
    ],
    { stdio: 'ignore' },
  );
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  for (let i = 0; i < 100 && !(await redisAnswers(url)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await redisAnswers(url))) {
    child.kill('SIGKILL');
    throw new Error(`redis-server did not start; see ${join(dir, 'redis.log')}`);
  }
  await writeFile(urlFile, url + '\n');
  return {
    url,
    owned: true,
    async stop() {
      await stopServer(url);
      await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
      if (child.exitCode === null) child.kill('SIGKILL');
    },
  };
}
