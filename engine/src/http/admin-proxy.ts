import type { TemplatedApp } from 'uWebSockets.js';
import type { EngineReply, InFlight } from './adapt.ts';
import { errorReply, guard, readBody, remoteIp, statusLine } from './adapt.ts';

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'upgrade', 'proxy-connection', 'te', 'trailer', 'content-length', 'host']);
const MAX_BODY = 4 * 1024 * 1024;

/**
 * The single-URL quickstart: every path the engine does not serve goes to the
 * admin process. A deployment can instead route /api, /trpc, /media and /docs
 * to admin instances at its load balancer.
 */
export function proxyToAdmin(app: TemplatedApp, upstream: string, inFlight: InFlight, onError: (err: unknown) => void): void {
  app.any('/*', (res, req) => {
    const g = guard(res, inFlight);
    const method = req.getMethod().toUpperCase();
    const query = req.getQuery();
    const url = `${upstream}${req.getUrl()}${query ? `?${query}` : ''}`;
    const headers = new Headers();
    req.forEach((k, v) => {
      if (!HOP_BY_HOP.has(k)) headers.append(k, v);
    });
    headers.set('x-forwarded-for', remoteIp(res));

    const finish = (status: number, outHeaders: [string, string][], body: Buffer | string) =>
      g.end(() => {
        res.writeStatus(statusLine(status));
        for (const [k, v] of outHeaders) res.writeHeader(k, v);
        res.end(body);
      });
    const fail = (out: EngineReply, close = false) => {
      const outHeaders = Object.entries(out.headers ?? {});
      if (close) outHeaders.push(['connection', 'close']);
      finish(out.status, outHeaders, out.body ?? '');
    };
    const forward = (body: Buffer | undefined) => {
      fetch(url, { method, headers, body, redirect: 'manual' })
        .then(async (r) => {
          const out: [string, string][] = [];
          r.headers.forEach((v, k) => {
            if (!HOP_BY_HOP.has(k) && k !== 'set-cookie' && k !== 'content-encoding') out.push([k, v]);
          });
          for (const c of r.headers.getSetCookie()) out.push(['set-cookie', c]);
          finish(r.status, out, Buffer.from(await r.arrayBuffer()));
        })
        .catch((err: unknown) => {
          onError(err);
          fail(errorReply('bad_gateway', 'Admin service unavailable'));
        });
    };
    if (method === 'GET' || method === 'HEAD') return forward(undefined);
    readBody(res, g, MAX_BODY, forward, () => fail(errorReply('payload_too_large', 'Body too large'), true));
  });
}
