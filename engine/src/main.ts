// One engine process: `node --import tsx engine/src/main.ts`. Needs REDIS_URL;
// ADMIN_UPSTREAM makes it forward every non-engine path to an admin process.
import { ConfigError, ENGINE_SLICES, loadConfig, pickSlices } from '@adnet/schemas/config';
import { createLogger } from '@adnet/runtime/log';
import { createEngine } from './engine.ts';
import { boundHeapGrowth, collectGarbageNow, keepMarkingOnLoop } from './full-collection.ts';

let config;
try {
  // Every variable is checked, as the launcher checks them; the engine keeps only its slices.
  config = pickSlices(loadConfig(process.env), ENGINE_SLICES);
} catch (e) {
  process.stderr.write(`${e instanceof ConfigError ? e.message : String(e)}\n`);
  process.exit(2);
}
const { redisUrl } = config.storage;
if (!redisUrl) {
  process.stderr.write('REDIS_URL is required for an engine process\n');
  process.exit(2);
}
const log = createLogger(config.server.logLevel, 'engine');
boundHeapGrowth(config.processes.heapGrowingPercent);
keepMarkingOnLoop(config.processes.concurrentMarking);
const engine = await createEngine({ config, redisUrl, log, adminUpstream: config.engine.adminUpstream });
collectGarbageNow();
const port = await engine.listen(config.server.port, config.server.host);
const metricsPort = await engine.listenOps(config.metrics.port, config.metrics.host);
log.info({ event: 'engine.listening', port, metricsPort, engine: engine.id }, 'engine listening');
process.send?.({ type: 'listening', port, metricsPort, engine: engine.id });

let stopping = false;
const stop = (signal: string) => {
  if (stopping) return;
  stopping = true;
  log.info({ event: 'engine.stopping', signal }, 'engine stopping');
  engine
    .stop()
    .then(() => {
      log.info(
        { event: 'engine.stopped', written: engine.events.written, dropped: engine.events.dropped },
        'engine stopped',
      );
      process.exit(0);
    })
    .catch((err: unknown) => {
      log.error({ err }, 'engine stop failed');
      process.exit(1);
    });
};
process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
