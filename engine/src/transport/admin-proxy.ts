import type { TemplatedApp } from 'uWebSockets.js';
import type { InFlight } from './http-adapter.ts';
import { guard, remoteIp, statusLine } from './http-adapter.ts';

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

    const finish = (status: number, outHeaders: [string, string][], body: Buffer) =>
      g.end(() => {
        res.writeStatus(statusLine(status));
        for (const [k, v] of outHeaders) res.writeHeader(k, v);
        res.end(body);
      });
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
          finish(502, [['content-type', 'application/json']], Buffer.from('{"error":"Admin service unavailable","code":"bad_gateway"}'));
        });
    };
    if (method === 'GET' || method === 'HEAD') return forward(undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    res.onData((chunk, isLast) => {
      if (g.done) return;
      size += chunk.byteLength;
      if (size > MAX_BODY) return finish(413, [['content-type', 'application/json'], ['connection', 'close']], Buffer.from('{"error":"Body too large","code":"payload_too_large"}'));
      chunks.push(Buffer.from(chunk.slice(0)));
      if (isLast) forward(Buffer.concat(chunks));
    });
  });
}
