import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, realpath, stat, writeFile } from 'node:fs/promises';
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
  const probe = new Redis(url, {
    lazyConnect: true,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
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

/**
 * How a Redis at `address` treats a client that gives no password: answers it (then with the folder it
 * keeps its data in), asks for a password, or is not there.
 */
async function withoutPassword(
  address: string,
): Promise<{ found: 'open'; dir: string } | { found: 'locked' | 'none' }> {
  const c = new Redis(address, {
    lazyConnect: true,
    enableReadyCheck: false,
    maxRetriesPerRequest: 0,
    retryStrategy: () => null,
    connectTimeout: 1000,
  });
  c.on('error', () => undefined);
  try {
    await c.connect();
    const [, dir] = (await c.config('GET', 'dir')) as string[];
    return { found: 'open', dir: dir ?? '' };
  } catch (e) {
    return { found: /NOAUTH/.test((e as Error).message) ? 'locked' : 'none' };
  } finally {
    c.disconnect();
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
 * The private server's password: made once (256 random bits), kept in `<dir>/redis.password` readable by
 * the owner only, and read again at every start so a restart keeps both the password and the data.
 */
export async function privateRedisPassword(dir: string): Promise<string> {
  const file = join(dir, 'redis.password');
  try {
    await writeFile(file, randomBytes(32).toString('hex') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    // Made by an earlier start, perhaps before the mode was enforced, or copied with looser rights.
    if (((await stat(file)).mode & 0o077) !== 0) await chmod(file, 0o600);
  }
  const password = (await readFile(file, 'utf8')).trim();
  if (!/^[0-9a-f]{64}$/.test(password))
    throw new Error(`${file} does not hold a password made by this program; remove it to make a new one`);
  return password;
}

/** `redis://:<password>@127.0.0.1:<port>`: the address kept in `redis.url` with the password put in. */
const withPassword = (address: string, password: string): string => {
  const url = new URL(address);
  url.password = password;
  return url.href.replace(/\/$/, '');
};

/**
 * The quickstart's Redis: a private redis-server with its data (AOF on) under
 * `<dataDir>/redis`, which only answers a client that gives the password kept
 * there; `pnpm start` runs it (the CLI never does: it finds it with
 * `privateRedisUrl`). A server already running on that folder (say, left by a
 * crash) is reused; one without the password (left by an older version) is
 * stopped and started again with it.
 */
export async function ensurePrivateRedis(dataDir: string): Promise<RedisTarget> {
  const dir = resolve(dataDir, 'redis');
  // The folder holds the data and the password: the owner's only.
  await mkdir(dir, { recursive: true, mode: 0o700 });
  if (((await stat(dir)).mode & 0o077) !== 0) await chmod(dir, 0o700);
  const password = await privateRedisPassword(dir);
  const urlFile = join(dir, 'redis.url');
  if (existsSync(urlFile)) {
    const address = (await readFile(urlFile, 'utf8')).trim();
    const url = withPassword(address, password);
    const there = await withoutPassword(address);
    // Given a password it does not ask for, Redis only warns: one that answers without it is not ours to keep.
    if (there.found === 'locked' && (await redisAnswers(url)))
      return { url, owned: false, stop: () => stopServer(url) };
    // Only a server of this very folder is stopped: the port may since have gone to someone else's Redis.
    if (there.found === 'open' && there.dir === (await realpath(dir))) await stopServer(address);
  }
  if (spawnSync('redis-server', ['--version']).error) throw new MissingRedisError();
  const port = await freePort();
  const address = `redis://127.0.0.1:${port}`;
  const url = withPassword(address, password);
  // The configuration comes on standard input (`-`): the password never shows in the process list.
  const child = spawn(
    'redis-server',
    [
      '-',
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
    // A process group of its own: a signal to the launcher's group (Ctrl-C in a terminal, a supervisor's group
    // kill) must not stop Redis before the admin's last batch and the engines' journals are written to it; the
    // launcher stops it last.
    { stdio: ['pipe', 'ignore', 'ignore'], detached: true },
  );
  child.stdin.end(`requirepass ${password}\n`);
  const exited = new Promise<void>((res) => child.once('exit', () => res()));
  for (let i = 0; i < 100 && !(await redisAnswers(url)); i++) await new Promise((r) => setTimeout(r, 50));
  if (!(await redisAnswers(url))) {
    child.kill('SIGKILL');
    throw new Error(`redis-server did not start; see ${join(dir, 'redis.log')}`);
  }
  // The address only: the password stays in its own file.
  await writeFile(urlFile, address + '\n');
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

/**
 * The address, password in, of the private Redis of `<dataDir>/redis` as its files name it; undefined when
 * they are not there. Reads only: a caller that must not start a database (the CLI) asks this, then
 * whether it answers.
 */
export async function privateRedisUrl(dataDir: string): Promise<string | undefined> {
  const dir = resolve(dataDir, 'redis');
  try {
    const [address, password] = await Promise.all([
      readFile(join(dir, 'redis.url'), 'utf8'),
      readFile(join(dir, 'redis.password'), 'utf8'),
    ]);
    return withPassword(address.trim(), password.trim());
  } catch {
    return undefined;
  }
}
