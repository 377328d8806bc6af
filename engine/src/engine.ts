import { ByteBudget } from '@adnet/runtime/byte-budget';
import { Periodic } from '@adnet/runtime/periodic';
import { Probe } from '@adnet/runtime/probe';
import type { Config } from '@adnet/schemas/config';
import type { EngineEvent } from '@adnet/schemas/events';
import { TRACKING_SECRET_KEY } from '@adnet/schemas/redis-keys';
import { connectRedis } from '@adnet/schemas/redis-connect';
import type { Redis } from '@adnet/schemas/redis-connect';
import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { us_listen_socket } from 'uWebSockets.js';
import { BudgetSlices } from './budget/budget-slices.ts';
import { RedisDirectCharger } from './budget/direct-charges.ts';
import type { EngineContext } from './context.ts';
import { EventBatcher } from './events/event-batcher.ts';
import { proxyToAdmin } from './http/admin-proxy.ts';
import { InFlight, addRoute, errorReply, json } from './http/adapt.ts';
import type { RouteContext } from './http/adapt.ts';
import { bidRoute } from './http/routes/bid.ts';
import { pushPreflightRoute, subscribeRoute, unsubscribeRoute, vapidKeyRoute, workerRoute } from './http/routes/push.ts';
import { widgetScriptRoute } from './http/routes/widget-script.ts';
import { impRoute, vastRoute } from './http/routes/widget-serve.ts';
import { startJournal } from './journal/journal-wiring.ts';
import type { EngineJournal } from './journal/journal-wiring.ts';
import { loadNativeUws } from './http/uws.ts';
import { VISITOR_HEADERS } from './http/visitor.ts';
import { addressList } from './net/address-list.ts';
import { EngineMetrics } from './observability/engine-metrics.ts';
import { allReady, engineChecks } from './observability/readiness.ts';
import { adminReadiness, publicReadiness } from './http/public-readiness.ts';
import { Pacer } from './pacing/pacer.ts';
import { CreativeRotation } from './rotation/creative-rotation.ts';
import { FrequencyCapCache } from './frequency/frequency-caps.ts';
import { RedisFrequencyStore } from './frequency/redis-frequency-store.ts';
import { ZoneRequestRate } from './fraud/zone-request-rate.ts';
import { PartnerLimiter } from './partners/partner-limiter.ts';
import { PushSender } from './push/push-sender.ts';
import { definePushScripts, removeSubscription, saveSubscription, vapidKeys } from './push/push-store.ts';
import { RedisCounters } from './store/counters.ts';
import { MovedMarks } from './store/moved.ts';
import { ConfigMirror } from './sync/config-mirror.ts';
import { campaignCandidates } from './index/engine-index.ts';
import { CircuitBreaker } from './demand/breaker.ts';
import { DemandStats } from './demand/demand-stats.ts';
import { DspClient } from './demand/dsp-client.ts';
import { Notifier, redisNoticeLedger } from './demand/notices.ts';
import type { SupplyDeps } from './demand/supply.ts';
import { redisWinStore } from './demand/win-store.ts';
import { demandMarkupRoute } from './http/routes/demand.ts';
import { buildServiceWorker, buildWidget, zoneScript } from '@adnet/widget/build';

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
  /** Stops accepting, answers what is in flight, then flushes spend and events. */
  stop(): Promise<void>;
}

const redisOptions = { maxRetriesPerRequest: 2, enableAutoPipelining: true, retryStrategy: (n: number) => Math.min(50 * 2 ** Math.min(n, 6), 2_000) };

async function trackingSecret(config: Config, redis: Redis): Promise<string> {
  if (config.trackingSecret) return config.trackingSecret;
  // First engine to start picks it; the rest read the same one.
  await redis.set(TRACKING_SECRET_KEY, randomBytes(32).toString('base64url'), 'NX');
  const secret = await redis.get(TRACKING_SECRET_KEY);
  if (!secret) throw new Error('tracking secret missing in Redis');
  return secret;
}

export async function createEngine(opts: EngineOptions): Promise<Engine> {
  const { config, log } = opts;
  const id = opts.engineId ?? randomBytes(6).toString('hex');
  const uws = loadNativeUws();
  const redis = connectRedis(opts.redisUrl, { ...redisOptions, connectionName: `engine-${id}` });
  const subscriber = connectRedis(opts.redisUrl, { ...redisOptions, connectionName: `engine-${id}-sub` });
  const inFlight = new InFlight();
  // Created before anything can fail, so every error is counted.
  const metrics = new EngineMetrics(id);
  const report = (what: string, err: unknown, requestId?: string) => {
    metrics.error(what);
    log.warn({ event: 'engine.error', what, requestId, err: err instanceof Error ? err.message : String(err) }, 'engine error');
  };
  const onError = (what: string) => (err: unknown) => report(what, err);
  redis.on('error', onError('redis'));
  subscriber.on('error', onError('redis-subscriber'));
  for (const [name, client] of [
    ['redis', redis],
    ['redis-subscriber', subscriber],
  ] as const) {
    client.on('ready', () => log.info({ event: 'redis.ready', connection: name }, 'redis connection ready'));
    client.on('end', () => log.warn({ event: 'redis.closed', connection: name }, 'redis connection closed'));
  }

  // Readiness is computed from this probe's last answer, never by awaiting Redis (observability/readiness.ts).
  const redisProbe = new Probe({ intervalMs: 1_000, deadlineMs: 2_000, check: () => redis.ping() });
  void redisProbe.start();
  const secret = await trackingSecret(config, redis);
  const events = new EventBatcher({
    redis,
    flushMs: config.eventFlushMs,
    batchMax: config.eventBatchMax,
    bufferMax: config.eventBufferMax,
    streamMaxLen: config.eventStreamMaxLen,
    onError: onError('events'),
  });
  // The campaigns whose spend this engine changed, for every engine's pacer (direct charges and win spend alike).
  const spentMarks = new MovedMarks(redis, 'spent');
  const budget = new BudgetSlices({
    redis,
    engineId: id,
    spentMarks,
    sliceCents: config.budgetSliceCents,
    onError: onError('budget'),
    onRebase: (pool, result) => metrics.reservation(pool, result),
  });
  const pacer = new Pacer(redis, () => mirror.index);
  const rotation = new CreativeRotation({ redis, index: () => mirror.index });
  const mirror = new ConfigMirror({
    redis,
    subscriber,
    onError: onError('config-sync'),
    onIndex: (index, delta) => {
      rotation.indexChanged(index, delta);
      // New pace handles (all of them after a full rebuild): carry the campaigns' current rates over.
      pacer.indexChanged(index, delta);
      // A change costs the work of what it changed: only a full rebuild walks every campaign.
      if (delta.full) {
        log.info({ event: 'index.loaded', seq: index.seq, candidates: index.candidateCount, partners: index.partners.length }, 'index loaded');
        budget.prewarm(new Set([...index.slots.values()].flat()));
        return;
      }
      log.info({ event: 'index.loaded', seq: index.seq, candidates: index.candidateCount, campaigns: delta.campaigns.size }, 'index updated');
      for (const id of delta.campaigns) budget.prewarm(campaignCandidates(index, id));
    },
  });
  metrics.watch({
    eventBacklog: () => events.backlog,
    eventsDropped: () => events.dropped,
    eventsWritten: () => events.written,
    inFlight: () => inFlight.count,
    indexChangeTime: () => (mirror.index ? Number(mirror.index.seq.split('-')[0]) / 1000 : undefined),
    indexCandidates: () => mirror.index?.candidateCount,
  });
  await mirror.start();
  events.start();
  const spendFlush = new Periodic({ intervalMs: 200, pass: () => budget.flush(), onError: onError('spend-flush') });
  spendFlush.start();
  const pacingTick = new Periodic({ intervalMs: config.pacingTickMs, pass: () => pacer.tick(), onError: onError('pacing') });
  pacingTick.start();
  const rotationRefresh = new Periodic({ intervalMs: config.rotationRefreshMs, pass: () => rotation.refresh(), onError: onError('rotation') });
  rotationRefresh.start();

  const app = uws.App();
  const emit = (e: EngineEvent) => {
    metrics.event(e);
    rotation.observe(e);
    events.push(e);
  };
  const trustedProxies = config.trustedProxies.length ? addressList(config.trustedProxies) : undefined;
  // BODY_BYTES_IN_FLIGHT_MAX bounds every body this process buffers, split in two halves: one for the
  // engine's own routes (bids, push subscriptions), one for the proxy to the admin, so that slow uploads
  // through the proxy cannot leave bids without room.
  const bodies = new ByteBudget(Math.floor(config.bodyBytesInFlightMax / 2));
  const proxiedBodies = new ByteBudget(config.bodyBytesInFlightMax - bodies.limit);
  const routes: RouteContext = {
    inFlight,
    idPrefix: id,
    onError: report,
    trustedProxies,
    bodies,
    observe: (route, status, seconds) => metrics.request(route, status, seconds),
  };
  // The supply side (demand/): kept-alive connections to demand partners, each behind its own breaker and QPS.
  const dsp = new DspClient({ allowLoopback: config.demand.allowLoopback, onLate: (pid) => demand.stats.add(pid, 'late') });
  const demand: SupplyDeps = {
    client: dsp,
    breaker: new CircuitBreaker(),
    limiter: new PartnerLimiter(config.engineCount),
    stats: new DemandStats(),
    notifier: new Notifier(redisNoticeLedger(redis), dsp),
    wins: redisWinStore(redis),
    secret,
    baseUrl: config.adBaseUrl,
    budget,
    now: () => performance.now(),
  };
  const demandFlush = new Periodic({ intervalMs: 1_000, pass: () => demand.stats.flush(redis, demand.breaker), onError: onError('demand-stats') });
  demandFlush.start();
  const vapid = await vapidKeys(redis);
  definePushScripts(redis);
  const ctx: EngineContext = {
    index: () => mirror.index,
    budget,
    counters: new RedisCounters(redis),
    creatives: rotation,
    direct: new RedisDirectCharger(redis, spentMarks),
    emit,
    caps: new FrequencyCapCache({ store: new RedisFrequencyStore(redis, id), onError: onError('frequency-caps') }),
    limiter: new PartnerLimiter(config.engineCount),
    // 200 000 keys: a few tens of megabytes at most, whatever a flood of new addresses does.
    zoneRequests: new ZoneRequestRate({ ...config.zoneRequests, maxKeys: 200_000 }),
    secret,
    // Ad and tracking links: the separate cookieless origin when one is configured.
    baseUrl: config.adBaseUrl,
    engineId: id,
    auctionTimeoutMs: config.auctionTimeoutMs,
    maxBidBodyBytes: config.maxBidBodyBytes,
    // Built once per engine: a zone's script is this bundle plus its settings.
    widget: { bundle: buildWidget(), zoneScript },
    push: {
      serviceHosts: config.push.serviceHosts,
      vapidPublicKey: vapid.publicKey,
      save: (zone, sub, audience) => saveSubscription(redis, zone, sub, { audience }),
      remove: (endpoint, zone) => removeSubscription(redis, endpoint, zone),
      worker: buildServiceWorker(config.adBaseUrl),
    },
    observeAuction: (seconds) => metrics.auctionTime(seconds),
    demand,
  };
  addRoute(
    app,
    'post',
    '/openrtb/bid',
    bidRoute(ctx),
    { maxBody: config.maxBidBodyBytes, headers: ['x-openrtb-version', 'content-encoding'], query: false },
    routes,
  );
  // The tracking routes answer within REDIS_DEADLINE_MS whatever Redis does, journaling what they could not count.
  const journal = await startJournal({ config, redisUrl: opts.redisUrl, redis, ctx, log, metrics, report });
  addRoute(app, 'get', '/openrtb/win/:ticket', journal.routes.win, { params: 1 }, routes);
  addRoute(app, 'get', '/openrtb/bill/:ticket', journal.routes.bill, { params: 1 }, routes);
  addRoute(app, 'get', '/openrtb/imptracker/:ticket', journal.routes.imptracker, { params: 1 }, routes);
  addRoute(app, 'get', '/openrtb/adm/:ticket', demandMarkupRoute(ctx), { params: 1 }, routes);
  addRoute(app, 'get', '/t/vast/:event/:ticket', journal.routes.vast, { params: 2 }, routes);
  addRoute(app, 'get', '/w/:file', widgetScriptRoute(ctx), { params: 1, headers: ['if-none-match'] }, routes);
  addRoute(app, 'get', '/imp', impRoute(ctx), { headers: VISITOR_HEADERS }, routes);
  addRoute(app, 'get', '/b/:ticket', journal.routes.beacon, { params: 1, headers: ['user-agent'] }, routes);
  addRoute(app, 'get', '/vast/:file', vastRoute(ctx), { params: 1, headers: VISITOR_HEADERS }, routes);
  addRoute(app, 'get', '/c/:impression/:token', journal.routes.click, { params: 2, headers: ['user-agent'] }, routes);
  addRoute(app, 'get', '/push/vapid-public-key', vapidKeyRoute(ctx), {}, routes);
  addRoute(app, 'options', '/push/subscribe', pushPreflightRoute, {}, routes);
  addRoute(app, 'post', '/push/subscribe', subscribeRoute(ctx), { maxBody: 8 * 1024, headers: VISITOR_HEADERS }, routes);
  addRoute(app, 'options', '/push/unsubscribe', pushPreflightRoute, {}, routes);
  addRoute(app, 'post', '/push/unsubscribe', unsubscribeRoute(ctx), { maxBody: 4 * 1024 }, routes);
  addRoute(app, 'get', '/push/sw.js', workerRoute(ctx), {}, routes);
  const pushSender = new PushSender({
    ctx,
    redis,
    vapid,
    minIntervalHours: config.push.minIntervalHours,
    sendIntervalMs: config.push.sendIntervalMs,
    concurrency: config.push.sendConcurrency,
    caFile: config.push.caFile,
    onError: onError('push-send'),
  });
  pushSender.start();
  const healthz = () => json(200, { ok: true, engine: id });
  // Not ready before the index is loaded: a load balancer must not send bids to an engine that would answer 503.
  // Not ready while Redis is down or hung either; a mirror or event writer behind is named without failing it.
  const readiness = () => {
    const checks = engineChecks({ redisStatus: () => redis.status, redisProbe, mirror, events, journal });
    const redisCheck = checks[0];
    return {
      ok: allReady(checks),
      engine: id,
      index_seq: mirror.index?.seq ?? null,
      index_published_ms: mirror.index ? Math.round(mirror.indexPublishedMs * 1000) / 1000 : null,
      redis: redisCheck?.state === 'hung' ? 'hung' : redis.status,
      event_backlog: events.backlog,
      checks,
    };
  };
  const readyz = () => {
    const ready = readiness();
    return json(ready.ok ? 200 : 503, ready);
  };
  addRoute(app, 'get', '/engine/healthz', healthz, {}, routes);
  addRoute(app, 'get', '/engine/readyz', readyz, {}, routes);
  // Without an admin behind it (engines behind a balancer), other paths get a 404 rather than a dropped connection.
  const notFound = () => errorReply('not_found', 'Not found');
  const upstream = opts.adminUpstream;
  // The base URL's /readyz: the admin's, asked with a deadline, beside this engine's own (http/public-readiness.ts).
  if (upstream)
    addRoute(
      app,
      'get',
      '/readyz',
      async (req) => {
        const ready = publicReadiness(await adminReadiness(upstream, req.requestId), readiness(), id);
        return json(ready.ok ? 200 : 503, ready);
      },
      {},
      routes,
    );
  if (opts.adminUpstream)
    proxyToAdmin(app, {
      upstream: opts.adminUpstream,
      inFlight,
      bodies: proxiedBodies,
      maxBody: config.adminBodyMaxBytes,
      idPrefix: id,
      trustedProxies,
      onError: onError('proxy'),
    });
  else addRoute(app, 'any', '/*', notFound, {}, routes);

  // The operators' address: metrics and probes, not reachable from the public port.
  const ops = uws.App();
  const opsRoutes: RouteContext = { inFlight: new InFlight(), idPrefix: `${id}-ops`, onError: report };
  addRoute(
    ops,
    'get',
    '/metrics',
    async () => ({ status: 200, headers: { 'content-type': metrics.registry.contentType }, body: await metrics.text() }),
    {},
    opsRoutes,
  );
  addRoute(ops, 'get', '/healthz', healthz, {}, opsRoutes);
  addRoute(ops, 'get', '/readyz', readyz, {}, opsRoutes);
  addRoute(ops, 'any', '/*', notFound, {}, opsRoutes);
  let opsSocket: us_listen_socket | undefined;

  let socket: us_listen_socket | undefined;
  return {
    id,
    mirror,
    budget,
    events,
    pushSender,
    metrics,
    journal,
    listen: (port, host) =>
      new Promise((resolve, reject) =>
        app.listen(host, port, (s) => {
          if (!s) return reject(new Error(`engine could not listen on ${host}:${port}`));
          socket = s;
          resolve(uws.us_socket_local_port(s));
        }),
      ),
    listenOps: (port, host) =>
      new Promise((resolve, reject) => {
        metrics.withProcessMetrics(config.metrics.loopDelayResolutionMs);
        ops.listen(host, port, (s) => {
          if (!s) return reject(new Error(`engine could not listen for metrics on ${host}:${port}`));
          opsSocket = s;
          resolve(uws.us_socket_local_port(s));
        });
      }),
    async stop() {
      if (socket) uws.us_listen_socket_close(socket);
      socket = undefined;
      redisProbe.stop();
      inFlight.draining = true;
      log.info({ event: 'engine.draining', inFlight: inFlight.count }, 'engine draining');
      await Promise.race([inFlight.idle(), new Promise((r) => setTimeout(r, config.shutdownGraceMs).unref())]);
      inFlight.closed = true;
      // Requests answered while Redis was away stay on disk for the next start (or another engine) to replay.
      await journal.stop();
      await mirror.stop();
      await pushSender.stop();
      await spendFlush.stop();
      await rotationRefresh.stop();
      await demandFlush.stop();
      await demand.stats.flush(redis, demand.breaker).catch(onError('demand-stats'));
      // Notices on the wire end before their sockets do: one cut off mid-answer would be retried, and sent twice.
      await demand.notifier.close(2_500);
      dsp.close();
      await pacingTick.stop();
      // The last counts of this engine join the shared ones.
      await rotation.refresh().catch(onError('rotation'));
      // Spend is money: keep trying through a short Redis outage (a failover) before giving up.
      for (let attempt = 0; attempt < 20; attempt++) {
        await budget.flush().catch(onError('spend-flush'));
        if (budget.unsentSpend === 0) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      if (budget.unsentSpend > 0) log.error({ event: 'budget.unsent_spend', batches: budget.unsentSpend }, 'spend could not be written to Redis before exit');
      await budget.releaseAll().catch(onError('budget-release'));
      await events.stop();
      await Promise.all([redis.quit().catch(() => undefined), subscriber.quit().catch(() => undefined)]);
      if (opsSocket) uws.us_listen_socket_close(opsSocket);
      opsSocket = undefined;
    },
  };
}
