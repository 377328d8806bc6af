import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { cp, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { eventBacklog } from '@adnet/admin/ingester';
import { createLogger } from '@adnet/admin/log';
import { connectRedis } from '@adnet/admin/redis';
import { createServices } from '@adnet/admin/services';
import { MANIFEST_FILE, backupManifestSchema } from '@adnet/schemas/backup';
import { loadConfig } from '@adnet/schemas/config';
import { call } from '@adnet/test-support/admin';
import type { Account, AppLike } from '@adnet/test-support/admin';
import { eventually, streamedEvents } from '@adnet/test-support/engine';
import { freePort } from '@adnet/test-support/redis';
import { World } from '@adnet/test-support/world';
import { launch, runCli, stopLaunched, tempDir } from './support/launch.ts';
import type { CliRun } from './support/launch.ts';

// `adnet backup` of a product serving traffic, more traffic, `adnet restore` into a fresh DATA_DIR, and a
// second product on it: everything is as it was at the backup, and every event in the restored stream is
// in the restored statistics exactly once.

const BROWSER = {
  'user-agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
};
const clients: Redis[] = [];

afterAll(async () => {
  for (const c of clients) await c.quit().catch(() => undefined);
  await stopLaunched();
});

/** `pnpm adnet ...` on DATA_DIR `dataDir`, never on an outside Redis or ClickHouse. */
function adnet(dataDir: string, ...args: string[]): Promise<CliRun> {
  return adnetWith({}, dataDir, ...args);
}

function adnetWith(extraEnv: Record<string, string>, dataDir: string, ...args: string[]): Promise<CliRun> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...extraEnv };
  delete env.REDIS_URL;
  delete env.CLICKHOUSE_URL;
  return runCli(env, args);
}

/** Services on a launched product's private Redis: the test makes accounts and approves sites through them. */
function servicesOf(base: string, dataDir: string): { app: AppLike; redis: Redis } {
  const url = new URL(readFileSync(join(dataDir, 'redis', 'redis.url'), 'utf8').trim());
  url.password = readFileSync(join(dataDir, 'redis', 'redis.password'), 'utf8').trim();
  const config = loadConfig({
    REDIS_URL: url.href,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    PASSWORD_SCRYPT_LOG_N: '12',
  });
  const redis = connectRedis(url.href, 'backup-test');
  clients.push(redis);
  return { app: { base, svc: createServices(config, redis, createLogger('silent')) }, redis };
}

/** Serves `n` ads of a zone, fires each one's beacon (the impression) and clicks every `clickEvery`-th. */
async function traffic(
  base: string,
  subid: string,
  { n, tag, clickEvery = 0 }: { n: number; tag: string; clickEvery?: number },
): Promise<void> {
  for (let i = 0; i < n; i++) {
    const r = await fetch(`${base}/imp?z=${subid}&fp=${tag}-${i}`, { headers: BROWSER });
    expect(r.status).toBe(200);
    const ad = (await r.json()) as { beacon_url: string; click_url: string };
    expect((await fetch(ad.beacon_url, { headers: BROWSER })).status).toBe(200);
    if (clickEvery > 0 && i % clickEvery === 0) {
      const click = await fetch(`${ad.click_url}?ttc=900&x=10&y=12&focus=1&fp=${tag}-${i}`, {
        headers: BROWSER,
        redirect: 'manual',
      });
      expect(click.status).toBe(302);
    }
  }
}

type Json = Record<string, unknown>;

/** What the API shows an advertiser and a publisher: balance and ledger, campaigns, creatives, sites, zones, statistics. */
async function snapshot(app: AppLike, adv: Account, pub: Account, campaignId: number): Promise<Json> {
  const day = new Date().toISOString().slice(0, 10);
  const hours = `from=${day}&to=${day}&group_by=hour`;
  const get = async (token: string, path: string) => {
    const r = await call<Json>(app, 'GET', path, { token });
    expect(r.status, `${path}: ${JSON.stringify(r.body)}`).toBe(200);
    return r.body;
  };
  return {
    balance: await get(adv.token, '/api/adv/balance?limit=100'),
    campaigns: await get(adv.token, '/api/adv/campaigns'),
    creatives: await get(adv.token, `/api/adv/campaigns/${campaignId}/creatives`),
    advStats: await get(adv.token, `/api/adv/stats?${hours}`),
    sites: await get(pub.token, '/api/pub/sites'),
    zones: await get(pub.token, '/api/pub/zones'),
    pubStats: await get(pub.token, `/api/pub/stats?${hours}`),
  };
}

const totals = (stats: Json, key: string): number =>
  ((stats.rows as Json[] | undefined) ?? []).reduce((n, row) => n + Number(row[key] ?? 0), 0);

/** Once the ingester has taken every entry and the engines' spend is written, the snapshot stops changing. */
async function settled(
  app: AppLike,
  redis: Redis,
  { adv, pub, campaignId }: { adv: Account; pub: Account; campaignId: number },
): Promise<Json> {
  let last = '';
  let same = 0;
  for (let i = 0; i < 120; i++) {
    const backlog = await eventBacklog(redis);
    const now = JSON.stringify(await snapshot(app, adv, pub, campaignId));
    same = backlog.lag === 0 && backlog.pending === 0 && now === last ? same + 1 : 0;
    if (same >= 3) return JSON.parse(now) as Json;
    last = now;
    await new Promise((r) => setTimeout(r, 500));
  }
  throw new Error(`never settled: ${last}`);
}

/** Impressions and clicks of a campaign as the events in a Redis's stream have them. */
async function streamCounts(redis: Redis, campaignId: number): Promise<{ impressions: number; clicks: number }> {
  const events = (await streamedEvents(redis)).filter((e) => e.campaign_id === campaignId);
  return {
    impressions: events.filter((e) => e.type === 'impression').length,
    clicks: events.filter((e) => e.type === 'click').length,
  };
}

/** A folder's files with their sizes and times: a refused command must leave it exactly so. */
function listing(dir: string): string {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .sort()
    .map((p) => {
      const s = statSync(join(dir, p));
      return `${p} ${s.size} ${s.mtimeMs}`;
    })
    .join('\n');
}

describe('adnet backup and restore', () => {
  it('copies a serving product and restores it into a new DATA_DIR that serves what it held at the backup', async () => {
    const dataA = tempDir();
    const port = String(await freePort());
    const a = await launch({ DATA_DIR: dataA, PORT: port, INGEST_FLUSH_MS: '100' });
    const { app, redis } = servicesOf(a.base, dataA);
    const world = await World.create(app);
    // Two advertisers on zones of different formats and publishers: the first's world is compared whole, the
    // second's ads are served all through the backup.
    const adv = await world.advertiser(100_000);
    const { campaign } = await world.campaign(adv, { format: 'native', bid_type: 'cpc', bid_usd: 0.3 });
    const zone = await world.zone({ format: 'native' });
    const busyAdv = await world.advertiser(100_000);
    const busy = (await world.campaign(busyAdv, { format: 'banner', bid_usd: 1 })).campaign;
    const busyZone = await world.zone({ format: 'banner', banner_width: 300, banner_height: 250 });
    await eventually(
      async () => (await fetch(`${a.base}/imp?z=${zone.subid}&fp=probe`, { headers: BROWSER })).status === 200,
      20_000,
    );
    await eventually(
      async () => (await fetch(`${a.base}/imp?z=${busyZone.subid}&fp=probe`, { headers: BROWSER })).status === 200,
      20_000,
    );

    await traffic(a.base, zone.subid, { n: 30, tag: 'before', clickEvery: 3 });
    await traffic(a.base, busyZone.subid, { n: 10, tag: 'busy-before' });
    const atBackup = await settled(app, redis, { adv, pub: zone.publisher, campaignId: campaign.id });
    expect(totals(atBackup.advStats as Json, 'impressions')).toBe(30);
    expect(totals(atBackup.advStats as Json, 'clicks')).toBe(10);
    expect(Number((atBackup.balance as Json).balance_cents)).toBeLessThan(100_000);

    // The backup, with ads served and answered all the while.
    const backupDir = join(tempDir(), 'backup');
    let serving = true;
    let servedDuring = 0;
    const during = (async () => {
      for (let i = 0; serving; i++) {
        await traffic(a.base, busyZone.subid, { n: 1, tag: `busy-during-${i}` });
        servedDuring++;
        // Under the zone's 600 requests a minute from one address.
        await new Promise((r) => setTimeout(r, 120));
      }
    })();
    const backup = await adnet(dataA, 'backup', backupDir);
    serving = false;
    await during;
    expect(backup.stderr).toBe('');
    expect(backup.status).toBe(0);
    expect(backup.stdout).toContain(`written to ${backupDir}`);
    expect(servedDuring).toBeGreaterThan(0);
    const manifest = backupManifestSchema.parse(JSON.parse(readFileSync(join(backupDir, MANIFEST_FILE), 'utf8')));
    expect(manifest.holds.media.files).toBe(2);
    expect(manifest.files.map((f) => f.path)).toEqual(expect.arrayContaining(['redis/dump.rdb', 'clickhouse/.backup']));
    // The admin's staging folder is emptied, and nothing of the backup's stays in DATA_DIR.
    expect(readdirSync(join(dataA, 'backup-staging'))).toEqual([]);

    // More traffic after the backup: none of it may come back with the restore.
    await traffic(a.base, zone.subid, { n: 20, tag: 'after', clickEvery: 4 });
    const later = await settled(app, redis, { adv, pub: zone.publisher, campaignId: campaign.id });
    expect(totals(later.advStats as Json, 'impressions')).toBe(50);
    expect(later).not.toEqual(atBackup);
    // The restored product takes the old one's place, at the same base URL (stored image and widget URLs carry it).
    await redis.quit();
    a.child.kill('SIGTERM');
    expect(await a.exit).toBe(0);

    const dataB = join(tempDir(), 'restored');
    const restore = await adnet(dataB, 'restore', backupDir);
    expect(restore.stderr).toBe('');
    expect(restore.status).toBe(0);
    expect(readdirSync(dataB).sort()).toEqual(['clickhouse', 'media', 'redis']);
    const b = await launch({ DATA_DIR: dataB, PORT: port, INGEST_FLUSH_MS: '100' });
    const restored = servicesOf(b.base, dataB);
    // The same tokens sign in: sessions are in Redis too.
    expect(await settled(restored.app, restored.redis, { adv, pub: zone.publisher, campaignId: campaign.id })).toEqual(
      atBackup,
    );
    // Exactly once: every impression and click in the restored stream is in the restored statistics, once, the
    // entries the ingester had not yet taken at the backup (served during it) included.
    const day = new Date().toISOString().slice(0, 10);
    const busyStats = await call<Json>(
      restored.app,
      'GET',
      `/api/adv/stats?from=${day}&to=${day}&campaign_id=${busy.id}`,
      { token: busyAdv.token },
    );
    expect(busyStats.status).toBe(200);
    const busyStream = await streamCounts(restored.redis, busy.id);
    expect(busyStream.impressions).toBeGreaterThanOrEqual(10);
    expect(totals(busyStats.body, 'impressions')).toBe(busyStream.impressions);
    expect(await streamCounts(restored.redis, campaign.id)).toEqual({ impressions: 30, clicks: 10 });
    // The restored product serves: images included.
    const ad = (await (await fetch(`${b.base}/imp?z=${zone.subid}&fp=restored`, { headers: BROWSER })).json()) as {
      creative: { image_url: string };
    };
    expect((await fetch(ad.creative.image_url)).status).toBe(200);

    process.stdout.write(
      `backup ${backup.ms.toFixed(0)} ms (${backup.stdout.trim()}); restore ${restore.ms.toFixed(0)} ms (${restore.stdout.trim()})\n`,
    );

    // Bad input: nothing is overwritten, and each says why.
    const before = listing(dataA);
    const intoUsed = await adnet(dataA, 'restore', backupDir);
    expect(intoUsed.status).toBe(2);
    expect(intoUsed.stderr).toContain(`DATA_DIR ${dataA} is not empty`);
    expect(listing(dataA)).toBe(before);

    const fresh = join(tempDir(), 'fresh');
    const notBackup = tempDir();
    writeFileSync(join(notBackup, 'notes.txt'), 'hello');
    const fromNothing = await adnet(fresh, 'restore', notBackup);
    expect(fromNothing.status).toBe(2);
    expect(fromNothing.stderr).toContain(`${notBackup} is not a backup: it has no manifest.json`);
    writeFileSync(join(notBackup, MANIFEST_FILE), JSON.stringify({ format: 'adnet-backup', version: 1 }));
    expect((await adnet(fresh, 'restore', notBackup)).stderr).toContain('is not a backup manifest: created_at');

    const damaged = join(tempDir(), 'damaged');
    await cp(backupDir, damaged, { recursive: true });
    const rdb = join(damaged, 'redis', 'dump.rdb');
    const bytes = readFileSync(rdb);
    bytes.writeUInt8(bytes.readUInt8(bytes.length - 20) ^ 0xff, bytes.length - 20);
    writeFileSync(rdb, bytes);
    const fromDamaged = await adnet(fresh, 'restore', damaged);
    expect(fromDamaged.status).toBe(2);
    expect(fromDamaged.stderr).toContain('redis/dump.rdb does not match its checksum');
    expect(existsSync(fresh)).toBe(false);
    // A failure on the way (no redis-server to turn the snapshot into the AOF) leaves no half data directory.
    const noRedis = await adnetWith({ PATH: '/nonexistent' }, fresh, 'restore', backupDir);
    expect(noRedis.status).toBe(1);
    expect(noRedis.stderr).toContain('Restore failed: redis-server could not start');
    expect(existsSync(fresh)).toBe(false);
    expect(readdirSync(join(fresh, '..')).filter((n) => n.includes('restoring'))).toEqual([]);

    const usedBackupDir = await adnet(dataA, 'backup', notBackup);
    expect(usedBackupDir.status).toBe(2);
    expect(usedBackupDir.stderr).toContain(`${notBackup} is not empty`);
    expect(readdirSync(notBackup).sort()).toEqual(['manifest.json', 'notes.txt']);

    // No product on DATA_DIR: said so, and no private Redis started for it.
    const idle = tempDir();
    await mkdir(join(idle, 'nothing-here'));
    const noProduct = await adnet(idle, 'backup', join(tempDir(), 'b'));
    expect(noProduct.status).toBe(2);
    expect(noProduct.stderr).toContain('No product is running on DATA_DIR');
    expect(readdirSync(idle)).toEqual(['nothing-here']);
    expect((await adnet(idle, 'restore')).status).toBe(2);
  }, 240_000);
});
