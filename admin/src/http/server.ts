import { randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { listenOn } from './listen.ts';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { TRPC_MAX_BATCH } from '@adnet/schemas/trpc-limits';
import { AppError, toHttp } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Context } from '../trpc/init.ts';
import { appRouter } from '../trpc/router.ts';
import { readiness } from './readiness.ts';
import { requestUrl } from './request-url.ts';
import { answerClientError } from './client-error.ts';
import { sellersJson } from '../repos/publisher.ts';
import { buildOpenApi } from './openapi.ts';
import { handleRest } from './rest-adapter.ts';
import { sampleMp4 } from '../domain/sample-mp4.ts';
import { parseSamplePath } from '../video/providers.ts';
import { serveCabinet } from './cabinet-static.ts';
import { demoPage } from './demo-page.ts';
import { clientAddressOf, httpsOf } from '../auth/client-address.ts';
import { CABINET_HEADER, readSessionCookie } from '../auth/session-cookie.ts';
import { admitBody, leaseBodyBudget } from './body.ts';
import { ByteBudget } from '@adnet/runtime/byte-budget';
import { SAFE_RESPONSE_HEADERS } from '@adnet/schemas/http-headers';
import { paymentRoutes } from '../payments/http.ts';

const MEDIA_TYPES: Record<string, string> = { png: 'image/png', jpg: 'image/jpeg', gif: 'image/gif', webp: 'image/webp' };
const REQUEST_ID_RE = /^[A-Za-z0-9._-]{1,64}$/;
const DOCS: Record<string, URL> = {
  '/docs/api': new URL('../../docs/api.md', import.meta.url),
  '/docs/vast': new URL('../../docs/vast.md', import.meta.url),
};

export interface AdminServer {
  server: Server;
  /** Resolves with the bound port (0 in options picks a free one). */
  listen(port: number, host: string): Promise<number>;
  /** Stops accepting, lets in-flight requests finish (up to the grace period), then closes. */
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const payload = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(payload), ...headers });
  res.end(payload);
}

export interface AdminServerOptions {
  /** The built cabinet (cabinet/dist) to serve under /cabinet; without it /cabinet answers 404. */
  cabinetDir?: string;
}

export function createAdminServer(svc: Services, opts: AdminServerOptions = {}): AdminServer {
  const openApi = JSON.stringify(buildOpenApi(svc.config.baseUrl));
  let inFlight = 0;
  // One budget for every request body this process buffers (REST and tRPC alike).
  const bodies = new ByteBudget(svc.config.bodyBytesInFlightMax);
  let drained: (() => void) | undefined;

  const payments = paymentRoutes(svc);
  const clientAddress = clientAddressOf(svc.config.adminTrustedProxies);
  const https = httpsOf(svc.config.adminTrustedProxies, svc.config.baseUrl);
  const one = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);
  /** `door`: the session cookie counts on /trpc only, the cabinet's door; REST clients send the header. */
  const contextFor = (req: IncomingMessage, requestId: string, door: 'trpc' | 'rest'): Context => ({
    svc,
    req: {
      authorization: req.headers.authorization,
      sessionCookie: door === 'trpc' ? readSessionCookie(req.headers.cookie) : undefined,
      site: { fetchSite: one(req.headers['sec-fetch-site']), origin: one(req.headers.origin), cabinet: one(req.headers[CABINET_HEADER]) },
      https: https(req),
      ip: clientAddress(req),
      requestId,
    },
    setCookies: [],
  });

  const trpc = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: svc.config.adminBodyMaxBytes,
    // One request must not fan out into unbounded work: larger batches are a 400 before any call runs.
    maxBatchSize: TRPC_MAX_BATCH,
    createContext: ({ req }) => contextFor(req, String(req.headers['x-request-id'] ?? ''), 'trpc'),
    responseMeta({ errors, ctx }) {
      const retry = errors.find((e) => e instanceof AppError && e.retryAfterSeconds !== undefined) as AppError | undefined;
      const headers: Record<string, string | string[]> = {};
      if (retry) headers['retry-after'] = String(retry.retryAfterSeconds);
      if (ctx && ctx.setCookies.length > 0) headers['set-cookie'] = ctx.setCookies;
      return { headers };
    },
    onError({ error, path, ctx }) {
      if (toHttp(error).status >= 500) svc.log.error({ err: error.cause ?? error, path, requestId: ctx?.req.requestId }, 'trpc error');
    },
  });

  /** Answers a path of the REST table (rest-routes.ts); false when the table has no such path. */
  async function rest(req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<boolean> {
    try {
      const result = await handleRest(req, url, contextFor(req, requestId, 'rest'));
      if (!result) return false;
      if (typeof result.body === 'string' && result.headers?.['content-type']) {
        res.writeHead(result.status, result.headers);
        res.end(result.body);
      } else send(res, result.status, result.body, result.headers);
    } catch (err) {
      const http = toHttp(err);
      // The details stay in the log; the client gets the request id to quote.
      if (http.status >= 500) svc.log.error({ err, requestId, path: url.pathname }, 'request failed');
      const allow = (err as { allow?: string }).allow;
      // After a refused body (too large, or no room in the budget) the rest is not read: close the connection.
      const extra: Record<string, string> = http.status === 413 || http.status === 503 ? { connection: 'close' } : {};
      const body = http.status >= 500 ? { ...http.body, request_id: requestId } : http.body;
      send(res, http.status, body, { ...http.headers, ...extra, ...(allow ? { allow } : {}) });
    }
    return true;
  }

  // What is not the tRPC door or the REST table is static: media, documents, the cabinet, probes.
  async function route(req: IncomingMessage, res: ServerResponse, requestId: string): Promise<void> {
    const url = requestUrl(req.url ?? '/');
    if (!url) return send(res, 400, { error: 'The request target is neither a path nor an http(s) URL', code: 'bad_request' });
    const path = url.pathname;
    if (path.startsWith('/trpc/')) {
      if (req.method !== 'GET' && req.method !== 'HEAD') {
        try {
          admitBody(req, svc.config.adminBodyMaxBytes);
        } catch (err) {
          const http = toHttp(err);
          return send(res, http.status, http.body, { ...http.headers, connection: 'close' });
        }
      }
      return trpc(req, res);
    }
    if (await rest(req, res, url, requestId)) return;
    if (path.startsWith('/api/')) return send(res, 404, { error: 'No such API path', code: 'not_found' });
    if ((path.startsWith('/pay/') || path.startsWith('/payments/')) && (await payments(req, res, path))) return;
    const sampleSeconds = req.method === 'GET' ? parseSamplePath(path) : undefined;
    if (sampleSeconds !== undefined) {
      const data = sampleMp4(sampleSeconds);
      res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': data.length, 'cache-control': 'public, max-age=86400' });
      return void res.end(data);
    }
    if (req.method === 'GET' && path.startsWith('/media/')) {
      const name = path.slice('/media/'.length);
      const data = await svc.media.read(name);
      if (!data) return send(res, 404, { error: 'No such file', code: 'not_found' });
      res.writeHead(200, {
        'content-type': MEDIA_TYPES[name.split('.').pop() ?? ''] ?? 'application/octet-stream',
        'content-length': data.length,
        'cache-control': 'public, max-age=31536000, immutable',
        'x-content-type-options': 'nosniff',
      });
      return void res.end(data);
    }
    // The base URL opened in a browser: the cabinet.
    if ((req.method === 'GET' || req.method === 'HEAD') && path === '/') {
      res.writeHead(302, { location: '/cabinet' });
      return void res.end();
    }
    const demo = req.method === 'GET' && path.startsWith('/demo/') ? demoPage(path, url.searchParams, svc.config) : undefined;
    if (demo) {
      res.writeHead(demo.status, demo.headers);
      return void res.end(demo.body);
    }
    if ((req.method === 'GET' || req.method === 'HEAD') && (path === '/cabinet' || path.startsWith('/cabinet/'))) {
      return serveCabinet(opts.cabinetDir, path, res);
    }
    if (req.method === 'GET' && path === '/openapi.json') {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8' });
      return void res.end(openApi);
    }
    const doc = DOCS[path];
    if (req.method === 'GET' && doc) {
      res.writeHead(200, { 'content-type': 'text/markdown; charset=utf-8' });
      return void res.end(await readFile(doc));
    }
    if (req.method === 'GET' && path === '/sellers.json') return send(res, 200, await sellersJson(svc), { 'cache-control': 'public, max-age=300' });
    if (req.method === 'GET' && path === '/healthz') return send(res, 200, { ok: true });
    if (req.method === 'GET' && path === '/readyz') {
      const ready = readiness(svc);
      return send(res, ready.ok ? 200 : 503, ready);
    }
    return send(res, 404, { error: 'Not found', code: 'not_found' });
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
      svc.log.info({ requestId, method: req.method, path, status: res.statusCode, ms: Math.round(seconds * 1000) }, 'request');
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
          new Promise<void>((resolve) => setTimeout(resolve, svc.config.shutdownGraceMs).unref()),
        ]);
      }
      server.closeAllConnections();
      await closed;
    },
  };
}
