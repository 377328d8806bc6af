import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHTTPHandler } from '@trpc/server/adapters/standalone';
import { TRPC_MAX_BATCH } from '@adnet/schemas/trpc-limits';
import { clientAddressOf, httpsOf } from '../auth/client-address.ts';
import { CABINET_HEADER, readSessionCookie } from '../auth/session-cookie.ts';
import { AppError, toHttp } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Context } from '../trpc/init.ts';
import { appRouter } from '../trpc/router.ts';
import { admitBody } from './body.ts';
import { handleRest } from './rest-adapter.ts';
import { send } from './send.ts';

/** `door`: the session cookie counts on /trpc only, the cabinet's door; REST clients send the header. */
export type ContextFor = (req: IncomingMessage, requestId: string, door: 'trpc' | 'rest') => Context;

export function requestContext(svc: Services): ContextFor {
  const clientAddress = clientAddressOf(svc.config.admin.trustedProxies);
  const https = httpsOf(svc.config.admin.trustedProxies, svc.config.server.baseUrl);
  const one = (v: string | string[] | undefined) => (typeof v === 'string' ? v : undefined);
  return (req, requestId, door) => ({
    svc,
    req: {
      authorization: req.headers.authorization,
      sessionCookie: door === 'trpc' ? readSessionCookie(req.headers.cookie) : undefined,
      site: {
        fetchSite: one(req.headers['sec-fetch-site']),
        origin: one(req.headers.origin),
        cabinet: one(req.headers[CABINET_HEADER]),
      },
      https: https(req),
      ip: clientAddress(req),
      requestId,
    },
    setCookies: [],
  });
}

/** The API itself: every tRPC path, its body admitted against the size limit before the adapter reads it. */
export function trpcDoor(svc: Services, contextFor: ContextFor): (req: IncomingMessage, res: ServerResponse) => void {
  const handler = createHTTPHandler({
    router: appRouter,
    basePath: '/trpc/',
    maxBodySize: svc.config.server.adminBodyMaxBytes,
    // One request must not fan out into unbounded work: larger batches are a 400 before any call runs.
    maxBatchSize: TRPC_MAX_BATCH,
    createContext: ({ req }) => contextFor(req, String(req.headers['x-request-id'] ?? ''), 'trpc'),
    responseMeta({ errors, ctx }) {
      const retry = errors.find((e) => e instanceof AppError && e.retryAfterSeconds !== undefined) as
        AppError | undefined;
      const headers: Record<string, string | string[]> = {};
      if (retry) headers['retry-after'] = String(retry.retryAfterSeconds);
      if (ctx && ctx.setCookies.length > 0) headers['set-cookie'] = ctx.setCookies;
      return { headers };
    },
    onError({ error, path, ctx }) {
      if (toHttp(error).status >= 500)
        svc.log.error({ err: error.cause ?? error, path, requestId: ctx?.req.requestId }, 'trpc error');
    },
  });
  return (req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      try {
        admitBody(req, svc.config.server.adminBodyMaxBytes);
      } catch (err) {
        const http = toHttp(err);
        return send(res, http.status, http.body, { ...http.headers, connection: 'close' });
      }
    }
    handler(req, res);
  };
}

/** Answers a path of the REST table (rest-routes.ts); false when the table has no such path. */
export function restDoor(svc: Services, contextFor: ContextFor) {
  return async (req: IncomingMessage, res: ServerResponse, url: URL, requestId: string): Promise<boolean> => {
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
  };
}
