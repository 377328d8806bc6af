import { Probe } from '@adnet/runtime/probe';
import type { Config } from '@adnet/schemas/config';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { us_listen_socket } from 'uWebSockets.js';
import type { BudgetSlices } from './budget/budget-slices.ts';
import type { EventBatcher } from './events/event-batcher.ts';
import { InFlight } from './http/adapt.ts';
import { loadNativeUws } from './http/uws.ts';
import { startJournal } from './journal/journal-wiring.ts';
import type { EngineJournal } from './journal/journal-wiring.ts';
import { EngineMetrics } from './observability/engine-metrics.ts';
import type { PushSender } from './push/push-sender.ts';
import { definePushScripts, vapidKeys } from './push/push-store.ts';
import type { ConfigMirror } from './sync/config-mirror.ts';
import { errorReporting } from './wiring/errors.ts';
import { startPasses, startPushSender } from './wiring/passes.ts';
import { enginePorts, supplySide } from './wiring/ports.ts';
import { engineHealth } from './wiring/readiness.ts';
import { connectEngineRedis, trackingSecret } from './wiring/redis.ts';
import { serveOps, servePublic } from './wiring/routes.ts';
import type { RouteDeps } from './wiring/routes.ts';
import { STOP_STEPS, stopInOrder } from './wiring/stop.ts';
import { buildStores } from './wiring/stores.ts';

export interface EngineOptions {
  config: Config;
  redisUrl: string;
  log: Logger;
  engineId?: string;
  /** Forward every other path here (the single-URL quickstart). */
  adminUpstream?: string;
}

export interface Engine {
  readonly id: string;
  readonly mirror: ConfigMirror;
  readonly budget: BudgetSlices;
  readonly events: EventBatcher;
  readonly pushSender: PushSender;
  readonly metrics: EngineMetrics;
  /** The tracking requests answered while Redis was away, and their replay. */
  readonly journal: EngineJournal;
  listen(port: number, host: string): Promise<number>;
  /** Metrics, /healthz and /readyz on the operators' address; resolves with the bound port. */
  listenOps(port: number, host: string): Promise<number>;
  /** Stops accepting, answers what is in flight, then flushes spend and events (wiring/stop.ts). */
  stop(): Promise<void>;
}

/**
 * The composition root: the wiring modules build the clients, stores, passes and ports in the order each needs
 * the last; the routes are the tables in wiring/routes.ts; stopping is the ordered steps in wiring/stop.ts.
 */
export async function createEngine(opts: EngineOptions): Promise<Engine> {
  const { config, log } = opts;
  const id = opts.engineId ?? randomBytes(6).toString('hex');
  const uws = loadNativeUws();
  // Created before anything can fail, so every error is counted.
  const metrics = new EngineMetrics(id);
  const { report, onError } = errorReporting(metrics, log);
  const clients = connectEngineRedis(opts.redisUrl, id, log, onError);
  const { redis } = clients;
  // Readiness is computed from this probe's last answer, never by awaiting Redis (observability/readiness.ts).
  const redisProbe = new Probe({ intervalMs: 1_000, deadlineMs: 2_000, check: () => redis.ping() });
  void redisProbe.start();
  const secret = await trackingSecret(config, redis);
  const inFlight = new InFlight();
  const stores = buildStores({
    config,
    engineId: id,
    redis,
    subscriber: clients.subscriber,
    log,
    metrics,
    inFlight,
    onError,
  });
  await stores.mirror.start();
  stores.events.start();
  const supply = supplySide(config, redis, secret, stores.budget);
  const passes = startPasses(config, redis, stores, { demand: supply.deps, onError });
  const vapid = await vapidKeys(redis);
  definePushScripts(redis);
  const ports = enginePorts({
    config,
    engineId: id,
    redis,
    secret,
    stores,
    metrics,
    supply: supply.deps,
    vapidPublicKey: vapid.publicKey,
    onError,
  });
  const journal = await startJournal({ config, redisUrl: opts.redisUrl, redis, ctx: ports.ctx, log, metrics, report });
  const pushSender = startPushSender(config, ports.push, { redis, vapid, onError });
  const health = engineHealth({
    engineId: id,
    redis,
    redisProbe,
    mirror: stores.mirror,
    events: stores.events,
    journal,
  });
  const deps: RouteDeps = { ctx: ports.ctx, journal, health, metrics, adminUpstream: opts.adminUpstream };
  const app = uws.App();
  servePublic(app, deps, { config, engineId: id, inFlight, report, onError });
  const ops = uws.App();
  serveOps(ops, deps, { config, engineId: id, report });

  const parts = { config, log, redisProbe, inFlight, journal, stores, passes, supply, pushSender, clients, onError };
  let socket: us_listen_socket | undefined;
  let opsSocket: us_listen_socket | undefined;
  const listen = (on: typeof app, port: number, host: string, what: string) =>
    new Promise<us_listen_socket>((resolve, reject) =>
      on.listen(host, port, (s) =>
        s ? resolve(s) : reject(new Error(`engine could not listen${what} on ${host}:${port}`)),
      ),
    );
  return {
    id,
    mirror: stores.mirror,
    budget: stores.budget,
    events: stores.events,
    pushSender,
    metrics,
    journal,
    listen: async (port, host) => uws.us_socket_local_port((socket = await listen(app, port, host, ''))),
    listenOps: async (port, host) => {
      metrics.withProcessMetrics(config.metrics.loopDelayResolutionMs);
      return uws.us_socket_local_port((opsSocket = await listen(ops, port, host, ' for metrics')));
    },
    stop: () =>
      stopInOrder(STOP_STEPS, {
        ...parts,
        closePublic: () => {
          if (socket) uws.us_listen_socket_close(socket);
          socket = undefined;
        },
        closeOps: () => {
          if (opsSocket) uws.us_listen_socket_close(opsSocket);
          opsSocket = undefined;
        },
      }),
  };
}
