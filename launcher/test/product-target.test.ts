import { spawn } from 'node:child_process';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '@adnet/schemas/config';
import { afterAll, describe, expect, it } from 'vitest';
import { NoProductError, productTarget, shellLine } from '../src/product-target.ts';
import { runFilePath, runningProduct } from '../src/run-file.ts';
import { stopLaunched, tempDir } from './support/launch.ts';

afterAll(stopLaunched);

describe('the product a CLI command acts on', () => {
  it('prints the command line to run again, quoted for a shell, without the password', () => {
    expect(shellLine(['user:create', '--email', 'a@example.com', '--password', "it's secret"])).toBe(
      'user:create --email a@example.com --password <password>',
    );
    expect(shellLine(['balance:credit', '--reason', "spring's bonus"])).toBe(
      `balance:credit --reason 'spring'\\''s bonus'`,
    );
  });

  it('counts a run file as a product only while its process lives', async () => {
    const dataDir = tempDir();
    expect(runningProduct(dataDir)).toBeUndefined();
    const run = {
      pid: process.pid,
      baseUrl: 'http://127.0.0.1:1',
      adBaseUrl: 'http://127.0.0.1:1',
      dataDir,
      redis: 'external',
      startedAt: new Date().toISOString(),
    };
    writeFileSync(runFilePath(dataDir), JSON.stringify(run));
    expect(runningProduct(dataDir)).toEqual(run);
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    writeFileSync(runFilePath(dataDir), JSON.stringify({ ...run, pid: gone.pid }));
    expect(runningProduct(dataDir)).toBeUndefined();
    writeFileSync(runFilePath(dataDir), 'not json');
    expect(runningProduct(dataDir)).toBeUndefined();
  });

  it('refuses a product whose Redis is external without REDIS_URL, and names no Redis it would make', async () => {
    const dataDir = tempDir();
    const run = {
      pid: process.pid,
      baseUrl: 'http://127.0.0.1:1',
      adBaseUrl: 'http://127.0.0.1:1',
      dataDir,
      redis: 'external',
      startedAt: new Date().toISOString(),
    };
    writeFileSync(runFilePath(dataDir), JSON.stringify(run));
    const refused = productTarget(loadConfig({ DATA_DIR: dataDir }), ['demo']);
    await expect(refused).rejects.toBeInstanceOf(NoProductError);
    await expect(refused).rejects.toThrow(`REDIS_URL=redis://... DATA_DIR=${dataDir} npx -y pnpm@10.34.8 adnet demo`);
    // With REDIS_URL: that Redis, and the running product's base URLs for links.
    const target = await productTarget(loadConfig({ DATA_DIR: dataDir, REDIS_URL: 'redis://:pw@127.0.0.1:6390' }), [
      'demo',
    ]);
    expect(target.config.server.baseUrl).toBe('http://127.0.0.1:1');
    expect(target.description).toContain('Redis from REDIS_URL');
    expect(existsSync(join(dataDir, 'redis'))).toBe(false);
  });
});
