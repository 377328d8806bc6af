import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '@adnet/test-support/redis';
import { ensurePrivateRedis, redisAnswers } from '../src/private-redis.ts';
import type { RedisTarget } from '../src/private-redis.ts';
import { stopLaunched, tempDir } from './support/launch.ts';

const started: RedisTarget[] = [];
afterAll(async () => {
  for (const t of started) await t.stop().catch(() => undefined);
  await stopLaunched();
});

async function start(dataDir: string): Promise<RedisTarget> {
  const target = await ensurePrivateRedis(dataDir);
  started.push(target);
  return target;
}

/** The server's raw answer to `GET kept` from a client that gives no password. */
function unauthenticated(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write('GET kept\r\n'));
    socket.once('data', (d) => {
      resolve(d.toString());
      socket.destroy();
    });
    socket.once('error', reject);
  });
}

const portOf = (url: string) => Number(new URL(url).port);

describe('the private Redis of `pnpm start`', () => {
  it('refuses a client without the generated password, which is kept owner-only and reused with the data after a restart', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    expect(first.owned).toBe(true);
    const password = new URL(first.url).password;
    expect(password).toMatch(/^[0-9a-f]{64}$/);

    const file = join(dataDir, 'redis', 'redis.password');
    expect(readFileSync(file, 'utf8').trim()).toBe(password);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(dataDir, 'redis')).mode & 0o777).toBe(0o700);
    // Neither the process list nor the address file shows it.
    const pid = readFileSync(join(dataDir, 'redis', 'redis.pid'), 'utf8').trim();
    expect(readFileSync(`/proc/${pid}/cmdline`, 'utf8')).not.toContain(password);
    expect(readFileSync(join(dataDir, 'redis', 'redis.url'), 'utf8')).not.toContain(password);

    const client = new Redis(first.url);
    await client.set('kept', 'across restarts');
    client.disconnect();
    expect(await unauthenticated(portOf(first.url))).toMatch(/^-NOAUTH/);
    expect(await unauthenticated(portOf(first.url))).not.toContain('across restarts');

    await first.stop();
    expect(await redisAnswers(first.url)).toBe(false);

    const second = await start(dataDir);
    expect(second.owned).toBe(true);
    expect(new URL(second.url).password).toBe(password);
    const again = new Redis(second.url);
    expect(await again.get('kept')).toBe('across restarts');
    again.disconnect();
    expect(await unauthenticated(portOf(second.url))).toMatch(/^-NOAUTH/);

    // A second caller (the CLI while `pnpm start` runs) joins the running server with the same password.
    const joined = await ensurePrivateRedis(dataDir);
    expect(joined).toMatchObject({ owned: false, url: second.url });
  }, 30_000);

  it('tightens a password file left with looser rights', async () => {
    const dataDir = tempDir();
    const first = await start(dataDir);
    await first.stop();
    const file = join(dataDir, 'redis', 'redis.password');
    chmodSync(file, 0o644);
    const second = await start(dataDir);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(second.url).toBe(first.url.replace(/:\d+$/, `:${portOf(second.url)}`));
  }, 30_000);

  it('replaces a server of its folder left without a password by an older version, keeping the data', async () => {
    const dataDir = tempDir();
    const dir = join(dataDir, 'redis');
    const first = await start(dataDir);
    const c = new Redis(first.url);
    await c.set('kept', 'from before');
    c.disconnect();
    await first.stop();
    // An older start left this server running: same folder, no password.
    const port = await freePort();
    const old = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--appendonly', 'yes', '--save', ''],
      { stdio: 'ignore' },
    );
    const oldExit = new Promise((r) => old.once('exit', r));
    const address = `redis://127.0.0.1:${port}`;
    for (let i = 0; i < 100 && !(await redisAnswers(address)); i++) await new Promise((r) => setTimeout(r, 50));
    writeFileSync(join(dir, 'redis.url'), `${address}\n`);

    const next = await start(dataDir);
    await oldExit;
    expect(next.owned).toBe(true);
    expect(await unauthenticated(portOf(next.url))).toMatch(/^-NOAUTH/);
    const d = new Redis(next.url);
    expect(await d.get('kept')).toBe('from before');
    d.disconnect();
  }, 30_000);
});
