import { spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTestApp } from '@adnet/test-support/admin';

const fx = useTestApp();

describe('operator CLI', () => {
  const cli = (...args: string[]) =>
    spawnSync(process.execPath, ['--import', 'tsx', 'launcher/src/adnet.ts', ...args], {
      cwd: new URL('../..', import.meta.url).pathname,
      // A data directory of its own: no product runs there, so the CLI acts on REDIS_URL alone.
      env: {
        ...process.env,
        REDIS_URL: fx.redis.url,
        DATA_DIR: join(mkdtempSync(join(tmpdir(), 'adnet-cli-')), 'data'),
      },
      encoding: 'utf8',
    });

  it('creates users of every role and credits balances', async () => {
    const email = `cli.${Date.now()}@example.com`;
    const made = cli('user:create', '--role', 'advertiser', '--email', email, '--password', 'cli-password');
    // It says what it acted on: here the Redis REDIS_URL names, no product running on DATA_DIR.
    expect(made.stderr).toMatch(
      /^adnet user:create: acting on the Redis at redis:\/\/127\.0\.0\.1:\d+ \(REDIS_URL; no product runs with DATA_DIR=/,
    );
    expect(made.stdout).toMatch(/created advertiser #\d+/);
    expect(cli('user:create', '--role', 'admin', '--email', `root.${email}`, '--password', 'cli-password').status).toBe(
      0,
    );
    const credited = cli('balance:credit', '--email', email, '--cents', '2500');
    expect(credited.stdout).toContain('balance 2500 cents');
    const user = await fx.app.svc.users.getByEmail(email);
    expect(await fx.app.svc.ledger.balance(user?.id ?? 0)).toBe(2500);
    // The operator vouches for the address, and no notice was queued for it.
    expect(user?.emailVerifiedAt).toEqual(expect.any(String));
    expect(await fx.app.svc.mailQueue.depth()).toBe(0);

    const dup = cli('user:create', '--role', 'advertiser', '--email', email, '--password', 'cli-password');
    expect(dup.status).toBe(2);
    expect(dup.stderr).toContain('already registered');
    const badRole = cli('user:create', '--role', 'boss', '--email', 'x@example.com', '--password', 'cli-password');
    expect(badRole.status).toBe(2);
    expect(badRole.stderr).toContain('--role');
    expect(cli('balance:credit', '--email', email, '--cents', '1.5').stderr).toContain('--cents');
  }, 60_000);
});
