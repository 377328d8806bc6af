import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { launchChromium } from '@adnet/test-support/browser';
import { freePort } from '@adnet/test-support/redis';
import { launch, runCli, stopLaunched, tempDir } from './support/launch.ts';
import type { CliRun } from './support/launch.ts';

// Headless Chromium names itself HeadlessChrome, which is on the bot list: the engine would rightly serve it nothing.
const CHROME_UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';

let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await stopLaunched();
});

/** `pnpm adnet …` as a subprocess, with only the environment given (no REDIS_URL unless named). */
function cli(env: Record<string, string>, ...args: string[]): Promise<CliRun> {
  const { REDIS_URL: _ignored, ...rest } = process.env;
  return runCli({ ...rest, ...env }, args);
}

async function json<T>(url: string, token?: string, init: RequestInit = {}): Promise<T> {
  const res = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  });
  if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

describe('pnpm adnet demo', () => {
  it('takes a started product to an ad served through the widget, clicked and counted, and a second run makes nothing new', async () => {
    const dataDir = tempDir();
    const run = await launch({ DATA_DIR: dataDir, PORT: String(await freePort()), ENGINE_PROCESSES: '1' });
    // The base URL opened in a browser is the cabinet.
    const root = await fetch(`${run.base}/`, { redirect: 'manual' });
    expect(root.status).toBe(302);
    expect(root.headers.get('location')).toBe('/cabinet');

    const first = await cli({ DATA_DIR: dataDir }, 'demo');
    expect(first.status, first.stderr).toBe(0);
    expect(first.stderr).toContain(
      `adnet demo: acting on the product at ${run.base} (pid ${run.child.pid}, DATA_DIR=${dataDir})`,
    );
    expect(first.stdout).toMatch(/created site #\d+, created zone \w+, created campaign #\d+, created creative #\d+/);
    const port = new URL(run.base).port;
    const page = new RegExp(`http://demo\\.localhost:${port}/demo/(\\w+)`).exec(first.stdout);
    expect(page).not.toBeNull();
    const password = /advertiser +demo-advertiser@example\.com +(\S+)/.exec(first.stdout)?.[1] ?? '';

    const second = await cli({ DATA_DIR: dataDir }, 'demo');
    expect(second.status, second.stderr).toBe(0);
    expect(second.stdout).toContain('nothing new made');
    expect(second.stdout).toContain(page?.[0]);
    expect(second.stdout).toContain(`demo-advertiser@example.com  ${password}`);

    // One of each, however many runs: read back through the API as the accounts the demo printed.
    const signIn = async (email: string, pw: string) =>
      (
        await json<{ token: string }>(`${run.base}/api/auth/token`, undefined, {
          method: 'POST',
          body: JSON.stringify({ email, password: pw }),
        })
      ).token;
    const adv = await signIn('demo-advertiser@example.com', password);
    const campaigns = (
      await json<{ campaigns: { id: number; status: string }[] }>(`${run.base}/api/adv/campaigns`, adv)
    ).campaigns;
    expect(campaigns.map((c) => c.status)).toEqual(['active']);
    const creatives = (
      await json<{ creatives: { status: string }[] }>(
        `${run.base}/api/adv/campaigns/${campaigns[0]?.id}/creatives`,
        adv,
      )
    ).creatives;
    expect(creatives.map((c) => c.status)).toEqual(['approved']);
    expect((await json<{ balance_cents: number }>(`${run.base}/api/adv/balance`, adv)).balance_cents).toBe(10_000);
    const pub = await signIn(
      'demo-publisher@example.com',
      /publisher +demo-publisher@example\.com +(\S+)/.exec(first.stdout)?.[1] ?? '',
    );
    expect(
      (await json<{ sites: { domain: string; status: string }[] }>(`${run.base}/api/pub/sites`, pub)).sites,
    ).toEqual([expect.objectContaining({ domain: 'demo.localhost', status: 'approved' })]);
    expect(
      (await json<{ zones: { subid: string }[] }>(`${run.base}/api/pub/zones`, pub)).zones.map((z) => z.subid),
    ).toEqual([page?.[1]]);

    // The printed page in a real browser, which finds demo.localhost on this machine by itself.
    browser = await launchChromium();
    const context = await browser.newContext({ userAgent: CHROME_UA });
    const tab = await context.newPage();
    await tab.goto(page?.[0] ?? '');
    const card = tab.locator('[data-adnet-zone] .native');
    await card.waitFor({ timeout: 15_000 });
    expect(await card.innerText()).toContain('adnet demo ad');
    // The image the repository ships, loaded from the product's media.
    expect(
      await tab
        .locator('[data-adnet-zone] img')
        .evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth),
    ).toBe(400);
    await tab.waitForTimeout(600); // a person looks before clicking
    const [landing] = await Promise.all([context.waitForEvent('page'), card.click()]);
    await landing.waitForLoadState();
    expect(landing.url()).toMatch(new RegExp(`^${run.base}/demo/landing\\?click_id=[0-9a-f-]{36}$`));
    expect(await landing.locator('#landing').innerText()).toContain('landing page');

    // The ingester brings the events into the statistics: exactly one impression and one click.
    const today = new Date().toISOString().slice(0, 10);
    const stats = `${run.base}/api/adv/stats?from=${today}&to=${today}&group_by=campaign`;
    let rows: { impressions: number; clicks: number }[] = [];
    for (let i = 0; i < 60; i++) {
      rows = (await json<{ rows: typeof rows }>(stats, adv)).rows;
      if (rows[0]?.clicks) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(rows).toEqual([expect.objectContaining({ campaign_id: campaigns[0]?.id, impressions: 1, clicks: 1 })]);

    // REDIS_URL beside a product that keeps its data in its private Redis would write where it never reads.
    const elsewhere = await cli({ DATA_DIR: dataDir, REDIS_URL: 'redis://127.0.0.1:1' }, 'dead-letters:list');
    expect(elsewhere.status).toBe(2);
    expect(elsewhere.stderr).toContain('keeps its data in its private Redis');
    run.child.kill('SIGTERM');
    expect(await run.exit).toBe(0);
    // Stopped, the product took its run file with it: the CLI now refuses here too.
    expect(existsSync(join(dataDir, 'run.json'))).toBe(false);
    expect((await cli({ DATA_DIR: dataDir }, 'demo')).status).toBe(2);
  }, 120_000);

  it('refuses where no product runs, prints the commands to run, and creates no data directory or Redis', async () => {
    const dataDir = join(tempDir(), 'data');
    const made = await cli(
      { DATA_DIR: dataDir },
      'user:create',
      '--role',
      'admin',
      '--email',
      'a@example.com',
      '--password',
      'secret-pass-1',
    );
    expect(made.status).toBe(2);
    expect(made.stdout).toBe('');
    expect(made.stderr).toContain(`No product runs with DATA_DIR=${dataDir}`);
    expect(made.stderr).toContain(`  DATA_DIR=${dataDir} npx -y pnpm@10.34.8 start\n`);
    expect(made.stderr).toContain(
      `  DATA_DIR=${dataDir} npx -y pnpm@10.34.8 adnet user:create --role admin --email a@example.com --password <password>\n`,
    );
    expect(made.stderr).not.toContain('secret-pass-1');
    expect(existsSync(dataDir)).toBe(false);

    // A run file left by a product that was killed names a process that is gone: no product either.
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((r) => gone.once('exit', r));
    mkdirSync(dataDir);
    const stale = {
      pid: gone.pid,
      baseUrl: 'http://127.0.0.1:1',
      adBaseUrl: 'http://127.0.0.1:1',
      dataDir,
      redis: 'private',
      startedAt: new Date().toISOString(),
    };
    writeFileSync(join(dataDir, 'run.json'), JSON.stringify(stale));
    const demo = await cli({ DATA_DIR: dataDir }, 'demo');
    expect(demo.status).toBe(2);
    expect(demo.stderr).toContain(`DATA_DIR=${dataDir} npx -y pnpm@10.34.8 adnet demo`);
    expect(existsSync(join(dataDir, 'redis'))).toBe(false);
    expect(existsSync(join(dataDir, 'demo-accounts.json'))).toBe(false);
  }, 30_000);
});
