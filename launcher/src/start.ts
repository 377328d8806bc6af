// `pnpm start`: the whole product on its embedded defaults (or REDIS_URL /
// CLICKHOUSE_URL when set), on one base URL.
import { ADMIN_SLICES, pickSlices } from '@adnet/schemas/config';
import { createAdmin } from '@adnet/admin';
import { createLogger } from '@adnet/admin/log';
import { CABINET_DIST, buildCabinet } from '@adnet/cabinet/build';
import { chooseEngineNode } from '@adnet/engine/engine-node';
import { startEngineProcess } from './engine-process.ts';
import { engineNodeArgs } from '@adnet/engine/full-collection';
import { ensurePrivateRedis } from './private-redis.ts';
import { readConfigOrExit } from './read-config.ts';
import { removeRunFile, writeRunFile } from './run-file.ts';
import { resolve } from 'node:path';

// `pnpm start` runs the product: production mode for this process, its libraries and the engines it
// starts (they inherit the environment). Error answers carry no stack or internal text in any mode.
process.env.NODE_ENV = 'production';
const config = readConfigOrExit();
const log = createLogger(config.server.logLevel);

// Everything started is registered here at once, so a signal at any stage (even mid-start)
// stops what exists, newest first: engines drain, then the admin, then storage.
const closers: { name: string; close: () => Promise<unknown> }[] = [];
let stopping = false;
async function shutdown(signal: string, code = 0): Promise<void> {
  if (stopping) return;
  stopping = true;
  log.info({ event: 'stopping', signal }, 'stopping');
  for (const { name, close } of closers.reverse()) {
    await close().catch((err: unknown) => log.error({ err, name }, 'stop failed'));
  }
  log.info({ event: 'stopped' }, 'stopped');
  process.exit(code);
}
process.on('SIGTERM', () => void shutdown('SIGTERM'));
process.on('SIGINT', () => void shutdown('SIGINT'));

async function start(): Promise<string> {
  let redisUrl = config.storage.redisUrl;
  if (!redisUrl) {
    const target = await ensurePrivateRedis(config.storage.dataDir);
    // The private Redis belongs to `pnpm start`, even one it found left over from a crash.
    closers.push({ name: 'private redis', close: () => target.stop() });
    redisUrl = target.url;
  }
  // Rebuilt only when its sources are newer than the last build, so a restart stays fast. A failed
  // build leaves the previous one (or a "not built" page) and never stops the ad network.
  const cabinet = await buildCabinet().catch((err: unknown) => {
    log.error({ err, event: 'cabinet.build_failed' }, 'cabinet build failed; serving the previous build if any');
    return { dir: CABINET_DIST, built: false };
  });
  if (cabinet.built) log.info({ event: 'cabinet.built', dir: cabinet.dir }, 'cabinet built');
  const building = createAdmin({ config: pickSlices(config, ADMIN_SLICES), redisUrl, log, cabinetDir: cabinet.dir });
  // Registered before the build settles: a signal that comes mid-build stops the admin once it is built.
  closers.push({
    name: 'admin',
    close: () =>
      building.then(
        (admin) => admin.stop(),
        () => undefined,
      ),
  });
  const admin = await building;
  // The admin listens privately; engines own the public port and forward admin paths to it.
  const adminPort = await admin.start({ port: config.processes.adminInternalPort, host: '127.0.0.1' });
  // Several engines share the public port (SO_REUSEPORT): the kernel spreads connections over them.
  const env = {
    ...process.env,
    REDIS_URL: redisUrl,
    ADMIN_UPSTREAM: `http://127.0.0.1:${adminPort}`,
    ENGINE_COUNT: String(process.env.ENGINE_COUNT ? config.processes.engineCount : config.processes.engineProcesses),
  };
  // Engines may run on a newer Node than this process (ENGINE_NODE, docs/deployment.md "Runtime").
  const node = chooseEngineNode(config.processes.engineNode);
  log.info(
    { event: 'engine.runtime', node: node.version, path: node.execPath, reason: node.reason },
    `engines run on Node ${node.version}`,
  );
  // Each engine has its own metrics address: the next ports after the admin's (any free port when METRICS_PORT=0).
  const engines = Array.from({ length: config.processes.engineProcesses }, (_, i) =>
    startEngineProcess({
      env: { ...env, METRICS_PORT: String(config.metrics.port === 0 ? 0 : config.metrics.port + 1 + i) },
      log,
      execPath: node.execPath,
      nodeArgs: engineNodeArgs({
        concurrentMarking: config.processes.concurrentMarking,
        semiSpaceMb: config.processes.semiSpaceMb,
      }),
    }),
  );
  closers.push({ name: 'engines', close: () => Promise.all(engines.map((e) => e.stop())) });
  await Promise.all(engines.map((e) => e.ready));
  return config.server.baseUrl;
}

let baseUrl: string;
try {
  baseUrl = await start();
} catch (e) {
  process.stderr.write(`${(e as Error).message}\n`);
  await shutdown('startup failure', 2);
  throw e;
}

// The CLI finds this product (and its Redis) from DATA_DIR by this file; it goes first when stopping.
const dataDir = resolve(config.storage.dataDir);
await writeRunFile({
  pid: process.pid,
  baseUrl,
  adBaseUrl: config.server.adBaseUrl,
  dataDir,
  redis: config.storage.redisUrl ? 'external' : 'private',
  startedAt: new Date().toISOString(),
});
closers.push({ name: 'run file', close: () => removeRunFile(dataDir, process.pid) });

log.info(
  {
    event: 'started',
    baseUrl,
    redis: config.storage.redisUrl ? 'external' : 'private',
    clickhouse: config.stats.clickhouseUrl ? 'server' : 'chdb',
  },
  'started',
);
// The CLI needs to be told the data directory only when it is not the default one, seen from here.
const env = process.env.DATA_DIR ? `DATA_DIR=${dataDir} ` : '';
const cli = `${env}npx -y pnpm@10.34.8 adnet`;
process.stdout.write(
  [
    '',
    `  Ad network is up at ${baseUrl} (data in ${dataDir})`,
    `  Web cabinet: ${baseUrl}/cabinet`,
    `  API reference: ${baseUrl}/docs/api   OpenAPI: ${baseUrl}/openapi.json`,
    '',
    '  See an ad served and clicked on this machine (in another terminal):',
    `    ${cli} demo`,
    '  It prints a page to open and the accounts to sign in with. Accounts of your own:',
    `    ${cli} user:create --role advertiser --email adv@example.com --password <password>`,
    '',
  ].join('\n') + '\n',
);
