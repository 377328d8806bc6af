import { ByteBudget } from '@adnet/runtime/byte-budget';
import type { EngineConfig, EngineSlice } from '@adnet/schemas/config';
import type { EngineContext } from '../context.ts';
import { proxyToAdmin } from '../http/admin-proxy.ts';
import { InFlight, addRoute, errorReply } from '../http/adapt.ts';
import type { Route, RouteContext, RouteHandler, RouteOptions } from '../http/adapt.ts';
import { audiencePixelRoute } from '../http/routes/audience-pixel.ts';
import { bidRoute } from '../http/routes/bid.ts';
import { demandMarkupRoute } from '../http/routes/demand.ts';
import { hbBidRoute, hbPreflightRoute, hbWonRoute } from '../http/routes/header-bid.ts';
import {
  pushPreflightRoute,
  subscribeRoute,
  unsubscribeRoute,
  vapidKeyRoute,
  workerRoute,
} from '../http/routes/push.ts';
import { goRoute } from '../http/routes/go.ts';
import { aboutAdRoute } from '../http/routes/about-ad.ts';
import { previewRoute } from '../http/routes/preview.ts';
import { widgetScriptRoute } from '../http/routes/widget-script.ts';
import { impRoute, vastRoute } from '../http/routes/widget-serve.ts';
import { VISITOR_HEADERS } from '../http/visitor.ts';
import type { EngineJournal } from '../journal/journal-wiring.ts';
import { addressList } from '../net/address-list.ts';
import type { EngineMetrics } from '../observability/engine-metrics.ts';
import type { EngineHealth } from './readiness.ts';

/** A uWS app, named through the adapter: only http/ and engine.ts import uWS. */
export type App = Parameters<typeof addRoute>[0];

/** What the routes' handlers are made from. */
export interface RouteDeps {
  ctx: EngineContext;
  /** The tracking routes, wrapped to answer without Redis (journal/journal-wiring.ts). */
  journal: EngineJournal;
  health: EngineHealth;
  metrics: EngineMetrics;
  /** The admin behind this engine (the single-URL quickstart); absent for engines behind a balancer. */
  adminUpstream: string | undefined;
}

export interface EngineRoute {
  method: Route['method'];
  path: string;
  handler: (d: RouteDeps) => RouteHandler;
  /** A function where an option is a setting. */
  options: RouteOptions | ((engine: EngineSlice) => RouteOptions);
  /** Registered only where this holds. */
  when?: (d: RouteDeps) => boolean;
}

/** A /hb/bid body: ten imps with their native requests fit well within it. */
export const HB_MAX_BODY_BYTES = 32 * 1024;

// Without an admin behind it (engines behind a balancer), other paths get a 404 rather than a dropped connection.
const notFound = () => errorReply('not_found', 'Not found');

/** The public port's routes, in the order they are registered. */
export const ENGINE_ROUTES: readonly EngineRoute[] = [
  {
    method: 'post',
    path: '/openrtb/bid',
    handler: (d) => bidRoute(d.ctx),
    options: (e) => ({ maxBody: e.maxBidBodyBytes, headers: ['x-openrtb-version', 'content-encoding'], query: false }),
  },
  // The tracking routes answer within REDIS_DEADLINE_MS whatever Redis does, journaling what they could not count.
  { method: 'get', path: '/openrtb/win/:ticket', handler: (d) => d.journal.routes.win, options: { params: 1 } },
  { method: 'get', path: '/openrtb/bill/:ticket', handler: (d) => d.journal.routes.bill, options: { params: 1 } },
  {
    method: 'get',
    path: '/openrtb/imptracker/:ticket',
    handler: (d) => d.journal.routes.imptracker,
    options: { params: 1 },
  },
  { method: 'get', path: '/openrtb/adm/:ticket', handler: (d) => demandMarkupRoute(d.ctx), options: { params: 1 } },
  { method: 'get', path: '/t/vast/:event/:ticket', handler: (d) => d.journal.routes.vast, options: { params: 2 } },
  {
    method: 'get',
    path: '/w/:file',
    handler: (d) => widgetScriptRoute(d.ctx),
    options: { params: 1, headers: ['if-none-match'] },
  },
  // The cookie: our id of the browser, which pixel audiences know it by (docs/audiences.md).
  {
    method: 'get',
    path: '/imp',
    handler: (d) => impRoute(d.ctx),
    options: { headers: [...VISITOR_HEADERS, 'cookie'] },
  },
  {
    method: 'get',
    path: '/px/:file',
    handler: (d) => audiencePixelRoute(d.ctx),
    options: { params: 1, headers: ['cookie'] },
  },
  {
    method: 'get',
    path: '/go/:subid',
    handler: (d) => goRoute(d.ctx),
    options: { params: 1, headers: VISITOR_HEADERS },
  },
  {
    method: 'get',
    path: '/b/:ticket',
    handler: (d) => d.journal.routes.beacon,
    options: { params: 1, headers: ['user-agent'] },
  },
  {
    method: 'get',
    path: '/vast/:file',
    handler: (d) => vastRoute(d.ctx),
    options: { params: 1, headers: VISITOR_HEADERS },
  },
  {
    method: 'get',
    path: '/c/:impression/:token',
    handler: (d) => d.journal.routes.click,
    options: { params: 2, headers: ['user-agent'] },
  },
  // The cabinet's live preview (its own path, so /imp carries none of it) and every ad's "About this ad" page.
  {
    method: 'get',
    path: '/preview/:subid',
    handler: (d) => previewRoute(d.ctx),
    options: { params: 1, headers: VISITOR_HEADERS },
  },
  {
    method: 'get',
    path: '/about-ad/:ticket',
    handler: (d) => aboutAdRoute(d.ctx),
    options: { params: 1, query: false },
  },
  // Our Prebid.js adapter (prebid/): a bid per zone, served as /imp serves it; its win notice only informs.
  { method: 'options', path: '/hb/bid', handler: () => hbPreflightRoute, options: { headers: ['origin'] } },
  {
    method: 'post',
    path: '/hb/bid',
    handler: (d) => hbBidRoute(d.ctx),
    options: { maxBody: HB_MAX_BODY_BYTES, headers: VISITOR_HEADERS, query: false },
  },
  {
    method: 'get',
    path: '/hb/won/:ticket',
    handler: (d) => hbWonRoute(d.ctx, () => d.metrics.hbWon()),
    options: { params: 1, query: false },
  },
  { method: 'get', path: '/push/vapid-public-key', handler: (d) => vapidKeyRoute(d.ctx), options: {} },
  { method: 'options', path: '/push/subscribe', handler: () => pushPreflightRoute, options: {} },
  {
    method: 'post',
    path: '/push/subscribe',
    handler: (d) => subscribeRoute(d.ctx),
    options: { maxBody: 8 * 1024, headers: VISITOR_HEADERS },
  },
  { method: 'options', path: '/push/unsubscribe', handler: () => pushPreflightRoute, options: {} },
  {
    method: 'post',
    path: '/push/unsubscribe',
    handler: (d) => unsubscribeRoute(d.ctx),
    options: { maxBody: 4 * 1024 },
  },
  { method: 'get', path: '/push/sw.js', handler: (d) => workerRoute(d.ctx), options: {} },
  { method: 'get', path: '/engine/healthz', handler: (d) => d.health.healthz, options: {} },
  { method: 'get', path: '/engine/readyz', handler: (d) => d.health.readyz, options: {} },
  {
    method: 'get',
    path: '/readyz',
    handler: (d) => d.health.publicReadyz(d.adminUpstream as string),
    options: {},
    when: (d) => d.adminUpstream !== undefined,
  },
  // With an admin behind it, every other path goes there (proxyToAdmin, after this table).
  { method: 'any', path: '/*', handler: () => notFound, options: {}, when: (d) => d.adminUpstream === undefined },
];

/** The operators' address: metrics and probes, not reachable from the public port. */
export const OPS_ROUTES: readonly EngineRoute[] = [
  {
    method: 'get',
    path: '/metrics',
    handler: (d) => async () => ({
      status: 200,
      headers: { 'content-type': d.metrics.registry.contentType },
      body: await d.metrics.text(),
    }),
    options: {},
  },
  { method: 'get', path: '/healthz', handler: (d) => d.health.healthz, options: {} },
  { method: 'get', path: '/readyz', handler: (d) => d.health.readyz, options: {} },
  { method: 'any', path: '/*', handler: () => notFound, options: {} },
];

/** Registers a table's routes, once at start: each handler is made here, none is looked up per request. */
export function addRoutes(
  app: App,
  table: readonly EngineRoute[],
  { deps, engine, routes }: { deps: RouteDeps; engine: EngineSlice; routes: RouteContext },
): void {
  for (const route of table) {
    if (route.when && !route.when(deps)) continue;
    const options = typeof route.options === 'function' ? route.options(engine) : route.options;
    addRoute(app, { method: route.method, pattern: route.path, handler: route.handler(deps), options }, routes);
  }
}

/**
 * The public port: the table's routes, and with an admin behind the engine, the proxy to it. BODY_BYTES_IN_FLIGHT_MAX
 * bounds every body this process buffers, split in two halves: one for the engine's own routes (bids, push
 * subscriptions), one for the proxy to the admin, so that slow uploads through the proxy cannot leave bids without room.
 */
export function servePublic(
  app: App,
  deps: RouteDeps,
  o: {
    config: Pick<EngineConfig, 'server' | 'engine'>;
    engineId: string;
    inFlight: InFlight;
    report: RouteContext['onError'];
    onError: (what: string) => (err: unknown) => void;
  },
): void {
  const { config, engineId: id } = o;
  const { server, engine } = config;
  const trustedProxies = engine.trustedProxies.length ? addressList(engine.trustedProxies) : undefined;
  const bodies = new ByteBudget(Math.floor(server.bodyBytesInFlightMax / 2));
  const routes: RouteContext = {
    inFlight: o.inFlight,
    idPrefix: id,
    onError: o.report,
    trustedProxies,
    bodies,
    observe: (route, status, seconds) => deps.metrics.request(route, status, seconds),
  };
  addRoutes(app, ENGINE_ROUTES, { deps, engine, routes });
  if (deps.adminUpstream)
    proxyToAdmin(app, {
      upstream: deps.adminUpstream,
      inFlight: o.inFlight,
      bodies: new ByteBudget(server.bodyBytesInFlightMax - bodies.limit),
      maxBody: server.adminBodyMaxBytes,
      idPrefix: id,
      trustedProxies,
      onError: o.onError('proxy'),
    });
}

/** The operators' port, with its own in-flight count and request ids: a drain of the public port leaves it answering. */
export function serveOps(
  app: App,
  deps: RouteDeps,
  { engine, engineId, report }: { engine: EngineSlice; engineId: string; report: RouteContext['onError'] },
): void {
  const routes = { inFlight: new InFlight(), idPrefix: `${engineId}-ops`, onError: report };
  addRoutes(app, OPS_ROUTES, { deps, engine, routes });
}
