import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { ByteBudget } from '@adnet/runtime/byte-budget';
import { SAFE_RESPONSE_HEADERS } from '@adnet/schemas/http-headers';
import { paymentRoutes } from '../payments/http.ts';
import type { Services } from '../services.ts';
import { leaseBodyBudget } from './body.ts';
import { answerClientError } from './client-error.ts';
import { requestContext, restDoor, trpcDoor } from './doors.ts';
import { listenOn } from './listen.ts';
import { requestUrl } from './request-url.ts';
import { adminRoutes } from './routes.ts';
import { send } from './send.ts';

const REQUEST_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;

export interface AdminServer {
  server: Server;
  /** Resolves with the bound port (0 in options picks a free one). */
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes. */
  close(): Promise<void>;
}

export interface AdminServerOptions {
  /** The built cabinet (cabinet/dist) to serve under /cabinet; without it /cabinet answers 404. */
  cabinetDir?: string;
}

export function createAdminServer(svc: Services, opts: AdminServerOptions = {}): AdminServer {
  const contextFor = requestContext(svc);
  const doors = { trpc: trpcDoor(svc, contextFor), rest: restDoor(svc, contextFor), payments: paymentRoutes(svc) };
  const routes = adminRoutes(svc, doors, opts.cabinetDir);
  // One budget for every request body this process buffers (REST and tRPC alike).
  const bodies = new ByteBudget(svc.config.server.bodyBytesInFlightMax);
  let inFlight = 0;
  let drained: (() => void) | undefined;

  async function route(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = requestUrl(req.url ?? '/');
    if (!url)
      return send(res, 400, { error: 'The request target is neither a path nor an http(s) URL', code: 'bad_request' });
    const r = { req, res, url, path: url.pathname, requestId };
    for (const row of routes) {
      if (row.methods && !row.methods.includes(req.method ?? '')) continue;
      if (row.matches(r.path) && (await row.serve(r)) !== false) return;
    }
    send(res, 404, { error: 'Not found', code: 'not_found' });
  }

  const server = createServer((req, res) => {
    const started = performance.now();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && REQUEST_ID_RE.test(given) ? given : randomUUID();
    req.headers['x-request-id'] = requestId;
    res.setHeader('x-request-id', requestId);
    // Every answer but the cabinet's page (serveCabinet sets its own policy over this one).
    for (const [k, v] of Object.entries(SAFE_RESPONSE_HEADERS)) res.setHeader(k, v);
    leaseBodyBudget(bodies, req, res);
    inFlight++;
    res.on('close', () => {
      inFlight--;
      const path = req.url?.split('?')[0] ?? '/';
      const seconds = (performance.now() - started) / 1000;
      svc.metrics.request(path, res.statusCode, seconds);
      svc.log.info(
        { requestId, method: req.method, path, status: res.statusCode, ms: Math.round(seconds * 1000) },
        'request',
      );
      if (inFlight === 0) drained?.();
    });
    route(req, res, requestId).catch((err: unknown) => {
      svc.metrics.error('request');
      svc.log.error({ err, requestId }, 'unhandled request error');
      if (!res.headersSent) send(res, 500, { error: 'Internal server error', code: 'internal', request_id: requestId });
      else res.destroy();
    });
  });
  server.requestTimeout = 30_000;
  server.headersTimeout = 15_000;
  server.on('clientError', answerClientError);

  return {
    server,
    listen: (port, host) => listenOn(server, port, host),
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise<void>((resolve) => setTimeout(resolve, svc.config.server.shutdownGraceMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
    },
  };
}
