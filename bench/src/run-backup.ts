// `pnpm bench:backup`: how long `adnet backup` and `adnet restore` take on the bench world (10 000 campaigns,
// 30 000 creatives, 500 funded advertisers) with BENCH_BACKUP_EVENTS events in the statistics, on the embedded
// default as `pnpm start` runs it. Writes bench/results/backup.{json,md}. The restore test
// (launcher/test/backup-restore.test.ts) proves what a restore holds; this measures what it costs.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { z } from 'zod';
import { eventBacklog } from '@adnet/admin/ingester';
import { engineEventSchema } from '@adnet/schemas/events';
import type { EngineEvent } from '@adnet/schemas/events';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { ROOT } from './child.ts';
import { pageHeader } from './results-page.ts';
import { freePort } from './local-redis.ts';
import { generateWorld, seedWorld } from './world.ts';

const settings = z
  .object({
    BENCH_BACKUP_EVENTS: z.coerce
      .number()
      .int('must be a whole number')
      .min(0, 'must not be negative')
      .max(50_000_000, 'must be at most 50000000')
      .default(1_000_000),
  })
  .safeParse(process.env);
if (!settings.success) {
  for (const i of settings.error.issues) process.stderr.write(`${i.path.join('.')}: ${i.message}\n`);
  process.exit(2);
}
const EVENTS = settings.data.BENCH_BACKUP_EVENTS;
const WORLD = { campaigns: 10_000, creativesPerCampaign: 3, advertisers: 500 };
const BATCH = 500;
const log = (line: string) => process.stderr.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const work = mkdtempSync(join(tmpdir(), 'adnet-bench-backup-'));
const dataDir = join(work, 'data');
const backupDir = join(work, 'backup');
const restoredDir = join(work, 'restored');

/** `pnpm adnet ...` on DATA_DIR `dir`, timed; never on an outside Redis or ClickHouse. */
function adnet(dir: string, ...args: string[]): Promise<{ status: number | null; out: string; ms: number }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'warn' };
  delete env.REDIS_URL;
  delete env.CLICKHOUSE_URL;
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'launcher/src/adnet.ts', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) =>
    child.once('close', (status) => resolve({ status, out, ms: Math.round(performance.now() - started) })),
  );
}

/** Size of a folder in MiB, as du counts it. */
const mib = (dir: string): number =>
  Math.round((Number.parseInt(execFileSync('du', ['-sk', dir], { encoding: 'utf8' }), 10) / 1024) * 10) / 10;

// 1. The product on its embedded default (its own Redis and chDB under DATA_DIR).
const port = await freePort();
const productLog = openSync(join(work, 'product.log'), 'a');
const productEnv: NodeJS.ProcessEnv = {
  ...process.env,
  ...{
    DATA_DIR: dataDir,
    HOST: '127.0.0.1',
    PORT: String(port),
    METRICS_PORT: String(await freePort()),
    ENGINE_PROCESSES: '1',
    LOG_LEVEL: 'warn',
  },
};
delete productEnv.REDIS_URL;
delete productEnv.CLICKHOUSE_URL;
const product = spawn(process.execPath, ['--import', 'tsx', 'launcher/src/start.ts'], {
  cwd: ROOT,
  env: productEnv,
  stdio: ['ignore', productLog, productLog],
});
let exited = false;
product.once('exit', () => (exited = true));
const stop = async () => {
  if (!exited) product.kill('SIGTERM');
  while (!exited) await sleep(100);
};
const fail = async (why: string): Promise<never> => {
  log(`FAILED: ${why}; the work folder is kept: ${work}`);
  await stop();
  process.exit(1);
};
for (let waited = 0; ; waited += 250) {
  if (exited) await fail('the product exited before it was ready');
  const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
    (r) => (void r.body?.cancel(), r.status),
    () => 0,
  );
  if (status === 200) break;
  if (waited > 180_000) await fail('the product was not ready within 3 minutes');
  await sleep(250);
}
const url = new URL(readFileSync(join(dataDir, 'redis', 'redis.url'), 'utf8').trim());
url.password = readFileSync(join(dataDir, 'redis', 'redis.password'), 'utf8').trim();
const redis = new Redis(url.href, { enableAutoPipelining: true });

// 2. The bench world, and the statistics: impressions of its campaigns, through the event stream the engines
// write and the ingester reads, so ClickHouse holds them as it holds served traffic.
let t = performance.now();
const world = generateWorld(WORLD);
await seedWorld(url.href, WORLD, world);
log(
  `seeded ${WORLD.campaigns} campaigns, ${world.creatives.length} creatives in ${Math.round(performance.now() - t)} ms`,
);
t = performance.now();
const now = Date.now();
const batchOf = (from: number, n: number): EngineEvent[] =>
  Array.from({ length: n }, (_, k) => {
    const i = from + k;
    const creative = world.creatives[i % world.creatives.length];
    const campaign = world.campaigns.find((c) => c.id === creative?.campaign_id) ?? world.campaigns[0];
    return engineEventSchema.parse({
      type: 'impression',
      id: randomBytes(8).toString('hex'),
      ts: now - (i % 86_400) * 1_000,
      engine: 'bench',
      campaign_id: campaign?.id,
      creative_id: creative?.id,
      advertiser_id: campaign?.advertiser_id,
      publisher_id: 1,
      site_id: 1,
      zone_id: 1 + (i % 50),
      country: ['us', 'de', 'fr', 'br'][i % 4],
      device: 'desktop',
      os: 'windows',
      browser: 'chrome',
      bid_id: `b${i}`,
      charge_nano: 1_000_000,
    });
  });
for (let i = 0; i < EVENTS; i += BATCH * 20) {
  const writes: Promise<unknown>[] = [];
  for (let j = i; j < Math.min(EVENTS, i + BATCH * 20); j += BATCH) {
    writes.push(redis.xadd(...xaddArgs(batchOf(j, Math.min(BATCH, EVENTS - j)), 10_000_000)));
  }
  await Promise.all(writes);
}
for (;;) {
  const b = await eventBacklog(redis);
  if (b.lag === 0 && b.pending === 0) break;
  if (exited) await fail('the product exited while it ingested');
  await sleep(500);
}
const ingestMs = Math.round(performance.now() - t);
log(`${EVENTS} events written and ingested in ${ingestMs} ms`);

// 3. The backup, while the product serves; then the restore into a new DATA_DIR.
const backup = await adnet(dataDir, 'backup', backupDir);
if (backup.status !== 0) await fail(`adnet backup exited ${backup.status}: ${backup.out}`);
log(`backup in ${backup.ms} ms: ${backup.out.trim().split('\n').pop() ?? ''}`);
await redis.quit();
await stop();
const restore = await adnet(restoredDir, 'restore', backupDir);
if (restore.status !== 0) await fail(`adnet restore exited ${restore.status}: ${restore.out}`);
log(`restore in ${restore.ms} ms: ${restore.out.trim().split('\n').pop() ?? ''}`);

const result = {
  at: new Date().toISOString(),
  machine: `${cpus().length} CPUs (${cpus()[0]?.model.trim() ?? ''}), Node ${process.version}, load average ${loadavg()[0]?.toFixed(1)} at the end`,
  world: { ...WORLD, creatives: world.creatives.length, events: EVENTS },
  ingestMs,
  backup: { ms: backup.ms, mib: mib(backupDir) },
  dataDirMib: mib(dataDir),
  restore: { ms: restore.ms, mib: mib(restoredDir) },
};
const outDir = join(ROOT, 'bench', 'results');
writeFileSync(join(outDir, 'backup.json'), JSON.stringify(result, null, 2) + '\n');
writeFileSync(
  join(outDir, 'backup.md'),
  [
    `# Backup and restore (${result.at})`,
    '',
    `Machine: ${result.machine}.`,
    ...pageHeader('npx -y pnpm@10.34.8 bench:backup'),
    `World: ${WORLD.campaigns} campaigns, ${world.creatives.length} creatives, ${WORLD.advertisers} funded advertisers; ${EVENTS} impressions in the statistics, written to the event stream and ingested (${ingestMs} ms).`,
    'Method: the product as `pnpm start` runs it on its embedded default (its own Redis and chDB under a new DATA_DIR); `adnet backup <dir>` while it serves, then `adnet restore <dir>` into a new DATA_DIR, each timed as the CLI process from start to exit. What a restore holds is proved by launcher/test/backup-restore.test.ts.',
    '',
    '| step | time s | size MiB |',
    '|---|---|---|',
    `| the product's DATA_DIR | - | ${result.dataDirMib} |`,
    `| \`adnet backup\` | ${(backup.ms / 1000).toFixed(1)} | ${result.backup.mib} |`,
    `| \`adnet restore\` | ${(restore.ms / 1000).toFixed(1)} | ${result.restore.mib} |`,
    '',
  ].join('\n'),
);
rmSync(work, { recursive: true, force: true });
log('wrote bench/results/backup.{json,md}');
