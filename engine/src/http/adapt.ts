import { ERROR_CODES } from '@adnet/schemas/errors';
import type { ErrorCode } from '@adnet/schemas/errors';
import type { BlockList } from 'node:net';
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { clientIp } from '../net/address-list.ts';

export interface EngineRequest {
  method: string;
  path: string;
  query: string;
  ip: string;
  /** Only the headers the route asked for (lower-case names). */
  headers: Record<string, string>;
  params: string[];
  body: Buffer;
  /** The caller's x-request-id when it is a sane token, else one made here; it goes back in the answer. */
  requestId: string;
}

/** What every route shares: the in-flight count, error reporting and per-route measurements. */
export interface RouteContext {
  inFlight: InFlight;
  /** Request ids made here are `<prefix>-<n>`: unique per engine without a random draw per request. */
  idPrefix: string;
  onError(what: string, err: unknown, requestId?: string): void;
  /** Load balancers whose X-Forwarded-For names the client (undefined: the socket address is the client). */
  trustedProxies?: BlockList;
  observe?(route: string, status: number, seconds: number): void;
}

export interface EngineReply {
  status: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export type RouteHandler = (req: EngineRequest) => EngineReply | Promise<EngineReply>;

export interface RouteOptions {
  /** Read a request body of at most this many bytes (413 past it). */
  maxBody?: number;
  headers?: readonly string[];
  params?: number;
}

const STATUS_TEXT: Record<number, string> = {
  200: '200 OK',
  201: '201 Created',
  204: '204 No Content',
  302: '302 Found',
  304: '304 Not Modified',
  400: '400 Bad Request',
  401: '401 Unauthorized',
  403: '403 Forbidden',
  404: '404 Not Found',
  405: '405 Method Not Allowed',
  409: '409 Conflict',
  413: '413 Payload Too Large',
  415: '415 Unsupported Media Type',
  422: '422 Unprocessable Entity',
  429: '429 Too Many Requests',
  500: '500 Internal Server Error',
  502: '502 Bad Gateway',
  503: '503 Service Unavailable',
};
export const statusLine = (code: number): string => STATUS_TEXT[code] ?? `${code} Status`;

export function remoteIp(res: HttpResponse): string {
  const text = Buffer.from(res.getRemoteAddressAsText()).toString();
  return text.startsWith('::ffff:') && text.includes('.') ? text.slice(7) : text;
}

/** Tracks requests in flight so shutdown can wait for them. */
export class InFlight {
  count = 0;
  /** Shutting down: answers close their connection, so keep-alive clients move to another engine. */
  draining = false;
  /** Past the drain: a request that still arrives is refused without being handled (its events could not be flushed). */
  closed = false;
  private waiters: (() => void)[] = [];
  enter(): void {
    this.count++;
  }
  leave(): void {
    if (--this.count === 0) for (const w of this.waiters.splice(0)) w();
  }
  idle(): Promise<void> {
    return this.count === 0 ? Promise.resolve() : new Promise((r) => this.waiters.push(r));
  }
}

export interface Guard {
  /** True once the response was written or the client went away. */
  readonly done: boolean;
  /** Writes (corked) unless done; then marks done and leaves the in-flight count. */
  end(write: () => void): void;
}

/** Must run first in a uWS handler: attaches onAborted and counts the request as in flight. */
export function guard(res: HttpResponse, inFlight: InFlight): Guard {
  inFlight.enter();
  let done = false;
  res.onAborted(() => {
    if (!done) {
      done = true;
      inFlight.leave();
    }
  });
  return {
    get done() {
      return done;
    },
    end(write) {
      if (done) return;
      done = true;
      res.cork(write);
      inFlight.leave();
    },
  };
}

/**
 * Every engine route goes through here, so the uWS lifetimes are handled in one
 * place: the request object is read synchronously; onAborted is attached
 * before anything async; body chunks are copied (uWS reuses their memory);
 * writes happen inside cork; nothing throws into the native layer.
 */
export function addRoute(
  app: TemplatedApp,
  method: 'get' | 'post' | 'options' | 'any',
  pattern: string,
  handler: RouteHandler,
  opts: RouteOptions,
  ctx: RouteContext,
): void {
  const names = [...(opts.headers ?? []), 'x-request-id', ...(ctx.trustedProxies ? ['x-forwarded-for'] : [])];
  app[method](pattern, (res, req) => {
    const started = performance.now();
    const g = guard(res, ctx.inFlight);
    const headers: Record<string, string> = {};
    for (const name of names) headers[name] = req.getHeader(name);
    const params: string[] = [];
    for (let i = 0; i < (opts.params ?? 0); i++) params.push(req.getParameter(i) ?? '');
    const given = headers['x-request-id'] as string;
    const requestId = given && given.length <= 64 && REQUEST_ID_RE.test(given) ? given : `${ctx.idPrefix}-${(++sequence).toString(36)}`;
    const request: EngineRequest = {
      method: req.getMethod(),
      path: req.getUrl(),
      query: req.getQuery() ?? '',
      ip: clientIp(remoteIp(res), headers['x-forwarded-for'] ?? '', ctx.trustedProxies),
      headers,
      params,
      body: EMPTY,
      requestId,
    };

    const reply = (out: EngineReply, closeAsked = false) =>
      g.end(() => {
        const close = closeAsked || ctx.inFlight.draining;
        res.writeStatus(statusLine(out.status));
        if (out.headers) for (const k in out.headers) res.writeHeader(k, out.headers[k] as string);
        res.writeHeader('x-request-id', requestId);
        if (close) res.writeHeader('connection', 'close');
        res.end(out.body ?? '', close);
        ctx.observe?.(pattern, out.status, (performance.now() - started) / 1000);
      });
    const failed = (err: unknown) => {
      ctx.onError(pattern, err, requestId);
      reply(INTERNAL);
    };
    const run = () => {
      try {
        const out = handler(request);
        if (out instanceof Promise) out.then(reply, failed);
        else reply(out);
      } catch (err) {
        failed(err);
      }
    };

    if (ctx.inFlight.closed) return reply(STOPPING, true);
    if (opts.maxBody === undefined) return run();
    const max = opts.maxBody;
    if (Number(req.getHeader('content-length') || 0) > max) return reply(tooLarge(max), true);
    readBody(
      res,
      g,
      max,
      (body) => {
        request.body = body;
        run();
      },
      () => reply(tooLarge(max), true),
    );
  });
}

/**
 * Reads a request body of at most `max` bytes. uWS reuses the chunks' memory
 * after each callback, so every chunk is copied. Past `max`, `onTooLarge` is
 * called once and the rest is ignored.
 */
export function readBody(res: HttpResponse, g: Guard, max: number, onBody: (body: Buffer) => void, onTooLarge: () => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  res.onData((chunk, isLast) => {
    if (g.done || over) return;
    size += chunk.byteLength;
    if (size > max) {
      over = true;
      return onTooLarge();
    }
    chunks.push(Buffer.from(chunk.slice(0)));
    if (isLast) onBody(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
  });
}

let sequence = 0;
const REQUEST_ID_RE = /^[A-Za-z0-9._-]+$/;
const EMPTY = Buffer.alloc(0);
export const json = (status: number, body: unknown, headers: Record<string, string> = {}): EngineReply => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

/** The product's error body `{error, code}` with the status the code has in the shared table. */
export const errorReply = (code: ErrorCode, message: string, headers: Record<string, string> = {}): EngineReply =>
  json(ERROR_CODES[code], { error: message, code }, headers);

const STOPPING = errorReply('unavailable', 'Engine is stopping', { 'retry-after': '1' });
const INTERNAL = errorReply('internal', 'Internal server error');
const tooLarge = (max: number): EngineReply => errorReply('payload_too_large', `Body is larger than ${max} bytes`);
