import type { ByteBudget } from '@adnet/runtime/byte-budget';
import type { BlockList } from 'node:net';
import { inList } from '../net/address-list.ts';
import type { HttpRequest, HttpResponse, TemplatedApp } from 'uWebSockets.js';
import type { EngineReply, Guard, InFlight } from './adapt.ts';
import { BUSY, errorReply, guard, readBody, remoteIp, requestIdOf, statusLine, writeSafetyHeaders } from './adapt.ts';

// Expect is answered here, not passed on: the body is read whole before the admin is asked.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'proxy-connection',
  'te',
  'trailer',
  'content-length',
  'host',
  'expect',
]);
/** Methods fetch refuses to send; no admin route takes them. */
const UNFORWARDABLE = new Set(['CONNECT', 'TRACE', 'TRACK']);
const FORWARDABLE_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * The request's end-to-end headers for fetch, which takes only Latin-1 strings, while uWS hands over
 * header bytes decoded as UTF-8: each value goes on as the bytes the client sent (valid UTF-8 kept
 * byte for byte), as the admin would have read them directly. Undefined when a value still cannot be
 * sent (a character HTTP forbids in a header).
 */
export function forwardedHeaders(req: Pick<HttpRequest, 'forEach'>): Headers | undefined {
  const headers = new Headers();
  let ok = true;
  req.forEach((k, v) => {
    if (!ok || HOP_BY_HOP.has(k)) return;
    try {
      headers.append(k, /[\u0100-\uffff]/.test(v) ? Buffer.from(v, 'utf8').toString('latin1') : v);
    } catch {
      ok = false;
    }
  });
  return ok ? headers : undefined;
}

export interface ProxyOptions {
  upstream: string;
  inFlight: InFlight;
  /** The process's body budget, shared with the engine's own routes. */
  bodies: ByteBudget;
  /** The largest body the admin takes (413 past it, before it is read). */
  maxBody: number;
  /** Prefix of the request ids made here, for requests that come without one. */
  idPrefix: string;
  /** `TRUSTED_PROXIES`: only their `X-Forwarded-Proto` is passed on. */
  trustedProxies?: BlockList;
  onError: (err: unknown) => void;
}

/**
 * The single-URL quickstart: every path the engine does not serve goes to the
 * admin process. A deployment can instead route /api, /trpc, /media and /docs
 * to admin instances at its load balancer. Memory stays bounded: a request body
 * is held within the shared budget (413 past `maxBody`, 503 past the budget, both
 * before it is buffered) and the admin's answer is streamed with backpressure,
 * never buffered whole.
 */
export function proxyToAdmin(app: TemplatedApp, o: ProxyOptions): void {
  app.any('/*', (res, req) => {
    const method = req.getMethod().toUpperCase();
    const bodied = method !== 'GET' && method !== 'HEAD';
    const g = guard(res, o.inFlight, bodied ? o.bodies : undefined);
    const query = req.getQuery();
    const url = `${o.upstream}${req.getUrl()}${query ? `?${query}` : ''}`;
    // One id from here to the admin's log and back, also on the answers made here.
    const requestId = requestIdOf(req.getHeader('x-request-id'), o.idPrefix);
    const headers = forwardedHeaders(req);
    const declared = Number(req.getHeader('content-length') || 0);

    const fail = (out: EngineReply, close = false) =>
      g.end(() => {
        res.writeStatus(statusLine(out.status));
        writeSafetyHeaders(res);
        for (const [k, v] of Object.entries(out.headers ?? {})) res.writeHeader(k, v);
        res.writeHeader('x-request-id', requestId);
        if (close) res.writeHeader('connection', 'close');
        res.end(out.body ?? '', close);
      });
    // Refused before the body is read: close the connection rather than read on.
    if (!headers)
      return fail(errorReply('bad_request', 'A request header holds characters that cannot be passed on'), true);
    if (UNFORWARDABLE.has(method))
      return fail(
        errorReply('method_not_allowed', `${method} is not served here`, { allow: FORWARDABLE_METHODS }),
        true,
      );
    headers.set('x-request-id', requestId);
    // Appended, not replaced: each proxy adds its peer, and the admin believes the chain only as far as its trusted proxies.
    const peer = remoteIp(res);
    const forwarded = headers.get('x-forwarded-for');
    headers.set('x-forwarded-for', forwarded ? `${forwarded}, ${peer}` : peer);
    // The engine speaks plain HTTP: a client reaching it directly came over http, whatever it claims (the
    // admin makes the session cookie Secure by this). A trusted proxy in front says how its client came.
    if (!(o.trustedProxies && inList(o.trustedProxies, peer))) headers.set('x-forwarded-proto', 'http');
    const forward = (body: Buffer | undefined) => {
      const ac = new AbortController();
      g.onAbort(() => ac.abort());
      fetch(url, { method, headers, body, redirect: 'manual', signal: ac.signal })
        .then((r) => relay(res, g, r))
        .catch((err: unknown) => {
          if (g.done) return;
          o.onError(err);
          fail(errorReply('bad_gateway', 'Admin service unavailable'));
        });
    };
    if (!bodied) return forward(undefined);
    readBody(res, g, { max: o.maxBody, declared }, forward, (why) =>
      fail(
        why === 'too_large' ? errorReply('payload_too_large', `Body is larger than ${o.maxBody} bytes`) : BUSY,
        true,
      ),
    );
  });
}

/**
 * Writes the admin's answer through as it arrives, waiting for the client whenever uWS reports backpressure.
 * Each Set-Cookie (the cabinet's session) goes on as its own header; the request's Cookie went to the admin
 * with the other headers, and the engine sends it nowhere else.
 */
async function relay(res: HttpResponse, g: Guard, r: Response): Promise<void> {
  const reader = r.body?.getReader();
  let started = false;
  const head = () => {
    res.writeStatus(statusLine(r.status));
    r.headers.forEach((v, k) => {
      if (!HOP_BY_HOP.has(k) && k !== 'set-cookie' && k !== 'content-encoding') res.writeHeader(k, v);
    });
    for (const c of r.headers.getSetCookie()) res.writeHeader('set-cookie', c);
  };
  try {
    for (;;) {
      const next = reader ? await reader.read() : undefined;
      if (g.done) return void (await reader?.cancel());
      const chunk: Uint8Array | undefined = next?.value as Uint8Array | undefined;
      if (!next || next.done || !chunk) break;
      let ok = true;
      res.cork(() => {
        if (!started) head();
        started = true;
        ok = res.write(chunk);
      });
      // Aborting the client also aborts the fetch, which rejects a pending read; a wait for room ends there too.
      if (!ok)
        await new Promise<void>((resume) => {
          res.onWritable(() => (resume(), true));
          g.onAbort(resume);
        });
    }
  } catch (err) {
    // The admin went away mid-answer: close the client's connection rather than end a truncated body as complete.
    if (!g.done && started) return g.end(() => res.close());
    throw err;
  }
  g.end(() => {
    if (!started) head();
    res.end();
  });
}
