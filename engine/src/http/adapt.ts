import { ERROR_CODES } from '@adnet/schemas/errors';
import type { ErrorCode } from '@adnet/schemas/errors';
import { NO_CONTENT_CSP } from '@adnet/schemas/http-headers';
import type { ByteBudget, ByteLease } from '@adnet/runtime/byte-budget';
import { SocketAddress } from 'node:net';
import type { BlockList } from 'node:net';
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js';
import { clientIp, inList } from '../net/address-list.ts';

export interface EngineRequest {
  method: string;
  path: string;
  query: string;
  /** The client: the socket's peer, or behind a trusted proxy the address it forwarded (net/address-list.ts). */
  ip: string;
  /** The peer is a trusted proxy (`TRUSTED_PROXIES`): only then are its country headers believed. */
  viaProxy: boolean;
  /** Only the headers the route asked for (lower-case names). */
  headers: Record<string, string>;
  params: readonly string[];
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
  /** Request-body bytes this process may hold at once (BODY_BYTES_IN_FLIGHT_MAX); unset: only the per-route limit. */
  bodies?: ByteBudget;
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
  /** false: the route reads no query string (`query` is ''), which saves a native call per request. */
  query?: boolean;
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

/** Every engine answer is JSON, XML, a pixel, a redirect or a script: never a page of ours (see schemas/src/http-headers.ts). */
export function writeSafetyHeaders(res: HttpResponse): void {
  res.writeHeader('x-content-type-options', 'nosniff');
  res.writeHeader('content-security-policy', NO_CONTENT_CSP);
}

const SAFE_HEADS = new Map<number, Buffer>();
/**
 * The status line with the safety headers after it, as one `writeStatus` (uWS writes `HTTP/1.1 `, the
 * given bytes, then a line end): one native call instead of three per answer, from bytes kept per status.
 */
function safeHead(status: number): Buffer {
  let head = SAFE_HEADS.get(status);
  if (head === undefined) {
    head = Buffer.from(
      `${statusLine(status)}\r\nx-content-type-options: nosniff\r\ncontent-security-policy: ${NO_CONTENT_CSP}`,
      'latin1',
    );
    SAFE_HEADS.set(status, head);
  }
  return head;
}

// IPv4 peers' dotted text by their 32-bit value: a balancer or a partner sends from a few addresses.
const V4_TEXT = new Map<number, string>();
const V4_TEXT_MAX = 4096;

// Other IPv6 peers' canonical text (RFC 5952) by uWS's full-length text.
const V6_TEXT = new Map<string, string>();

/**
 * The peer's address as text, IPv4-mapped IPv6 as plain IPv4. uWS gives the address's bytes (4, or 16 on
 * an IPv6 socket); IPv4 is formatted here (remembered per address) rather than decoded from uWS's own text,
 * which costs a Buffer and a string decoding per request. Other IPv6 peers: uWS writes every group out in
 * full (`2001:0db8:0000:…`), which is put in the canonical form a forwarded address, a log reader or an
 * allow-list's author writes (`2001:db8::…`), so one client is one text on every path.
 */
export function remoteIp(res: HttpResponse): string {
  const raw = new Uint8Array(res.getRemoteAddress());
  const at = raw.length === 4 ? 0 : raw.length === 16 && isV4Mapped(raw) ? 12 : -1;
  if (at === -1) return canonicalV6(Buffer.from(res.getRemoteAddressAsText()).toString('latin1'));
  const a = raw[at] as number;
  const b = raw[at + 1] as number;
  const c = raw[at + 2] as number;
  const d = raw[at + 3] as number;
  const key = ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
  let text = V4_TEXT.get(key);
  if (text === undefined) {
    text = `${a}.${b}.${c}.${d}`;
    if (V4_TEXT.size >= V4_TEXT_MAX) V4_TEXT.clear();
    V4_TEXT.set(key, text);
  }
  return text;
}

function canonicalV6(full: string): string {
  let text = V6_TEXT.get(full);
  if (text === undefined) {
    try {
      text = new SocketAddress({ address: full, family: 'ipv6' }).address;
    } catch {
      text = full;
    }
    if (V6_TEXT.size >= V4_TEXT_MAX) V6_TEXT.clear();
    V6_TEXT.set(full, text);
  }
  return text;
}

/** `::ffff:a.b.c.d`: ten zero bytes, two 0xff, then the IPv4 address. */
function isV4Mapped(raw: Uint8Array): boolean {
  for (let i = 0; i < 10; i++) if (raw[i] !== 0) return false;
  return raw[10] === 0xff && raw[11] === 0xff;
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
  /** Writes (corked) unless done; then marks done, leaves the in-flight count and gives back the body's bytes. */
  end(write: () => void): void;
  /** This request's share of the body budget, given back when it is done (answered or aborted). */
  readonly body: ByteLease | undefined;
  /** Runs `fn` if the client goes away before the answer is written (uWS keeps one onAborted handler: the guard's). */
  onAbort(fn: () => void): void;
}

/**
 * A class rather than closures over locals: every request makes one, and under tsx (esbuild's keepNames)
 * each named closure also costs a `name` definition (bench/results/ab-history.md, step 6).
 */
class RequestGuard implements Guard {
  done = false;
  readonly body: ByteLease | undefined;
  private aborted: (() => void) | undefined = undefined;
  constructor(
    private readonly res: HttpResponse,
    private readonly inFlight: InFlight,
    bodies: ByteBudget | undefined,
  ) {
    inFlight.enter();
    this.body = bodies?.lease();
    res.onAborted(() => {
      if (this.done) return;
      this.finish();
      this.aborted?.();
    });
  }
  onAbort(fn: () => void): void {
    this.aborted = fn;
  }
  end(write: () => void): void {
    if (this.done) return;
    this.res.cork(write);
    this.finish();
  }
  private finish(): void {
    this.done = true;
    this.inFlight.leave();
    this.body?.release();
  }
}

/** Must run first in a uWS handler: attaches onAborted and counts the request as in flight. */
export function guard(res: HttpResponse, inFlight: InFlight, bodies?: ByteBudget): Guard {
  return new RequestGuard(res, inFlight, bodies);
}

/** One request through addRoute: answering it, as methods of one object (see RequestGuard). */
class Exchange {
  // eslint-disable-next-line @typescript-eslint/max-params -- hot path: one per request through addRoute
  constructor(
    private readonly res: HttpResponse,
    private readonly g: Guard,
    readonly request: EngineRequest,
    private readonly started: number,
    private readonly pattern: string,
    private readonly ctx: RouteContext,
    private readonly handler: RouteHandler,
  ) {}

  reply(out: EngineReply, closeAsked = false): void {
    this.g.end(() => this.write(out, closeAsked));
  }

  private write(out: EngineReply, closeAsked: boolean): void {
    const { res, ctx } = this;
    const close = closeAsked || ctx.inFlight.draining;
    res.writeStatus(safeHead(out.status));
    // The reply's headers and the request id as one write: uWS writes `name: value\r\n` as given, and
    // each native call costs more than joining the few short strings here.
    let more = this.request.requestId;
    if (out.headers) for (const k in out.headers) more += `\r\n${k}: ${out.headers[k] as string}`;
    res.writeHeader('x-request-id', more);
    // Closing, uWS writes `Connection: close` itself (a second one of ours made the header read "close, close").
    res.end(out.body ?? '', close);
    ctx.observe?.(this.pattern, out.status, (performance.now() - this.started) / 1000);
  }

  failed(err: unknown): void {
    this.ctx.onError(this.pattern, err, this.request.requestId);
    this.reply(INTERNAL);
  }

  run(): void {
    try {
      const out = this.handler(this.request);
      if (out instanceof Promise)
        out.then(
          (o) => this.reply(o),
          (err: unknown) => this.failed(err),
        );
      else this.reply(out);
    } catch (err) {
      this.failed(err);
    }
  }
}

/** One route: its method and path pattern, what answers it, and how its requests are read. */
export interface Route {
  method: 'get' | 'post' | 'options' | 'any';
  pattern: string;
  handler: RouteHandler;
  options: RouteOptions;
}

/**
 * Every engine route goes through here, so the uWS lifetimes are handled in one
 * place: the request object is read synchronously; onAborted is attached
 * before anything async; body chunks are copied (uWS reuses their memory);
 * writes happen inside cork; nothing throws into the native layer.
 */
export function addRoute(
  app: TemplatedApp,
  { method, pattern, handler, options: opts }: Route,
  ctx: RouteContext,
): void {
  const names = [...(opts.headers ?? []), 'x-request-id', ...(ctx.trustedProxies ? ['x-forwarded-for'] : [])];
  const paramCount = opts.params ?? 0;
  const readQuery = opts.query !== false;
  // A route of one method and a fixed path knows both without asking uWS (a native call and a string each).
  const fixedMethod = method === 'any' ? undefined : method;
  const fixedPath = /[:*]/.test(pattern) ? undefined : pattern;
  app[method](pattern, (res, req) => {
    const started = performance.now();
    const g = guard(res, ctx.inFlight, opts.maxBody === undefined ? undefined : ctx.bodies);
    const headers: Record<string, string> = {};
    for (const name of names) headers[name] = req.getHeader(name);
    let params = NO_PARAMS;
    if (paramCount > 0) {
      const read: string[] = [];
      for (let i = 0; i < paramCount; i++) read.push(req.getParameter(i) ?? '');
      params = read;
    }
    const requestId = requestIdOf(headers['x-request-id'] as string, ctx.idPrefix);
    const peer = remoteIp(res);
    const viaProxy = ctx.trustedProxies !== undefined && inList(ctx.trustedProxies, peer);
    const request: EngineRequest = {
      method: fixedMethod ?? req.getMethod(),
      path: fixedPath ?? req.getUrl(),
      query: readQuery ? (req.getQuery() ?? '') : '',
      ip: viaProxy ? clientIp(peer, headers['x-forwarded-for'] ?? '', ctx.trustedProxies) : peer,
      viaProxy,
      headers,
      params,
      body: EMPTY,
      requestId,
    };

    const exchange = new Exchange(res, g, request, started, pattern, ctx, handler);

    if (ctx.inFlight.closed) return exchange.reply(STOPPING, true);
    if (opts.maxBody === undefined) return exchange.run();
    const max = opts.maxBody;
    readBody(
      res,
      g,
      { max, declared: Number(req.getHeader('content-length') || 0) },
      (body) => {
        request.body = body;
        exchange.run();
      },
      (why) => exchange.reply(why === 'too_large' ? tooLarge(max) : BUSY, true),
    );
  });
}

export type BodyRefusal = 'too_large' | 'busy';

/**
 * Reads a request body of at most `max` bytes, holding its bytes in the guard's share of the
 * process's body budget before buffering them: the declared length at once, then whatever a chunked
 * body adds. uWS reuses the chunks' memory after each callback, so every chunk is copied. Past `max`
 * (`too_large`) or past the budget (`busy`), `onRefused` is called once, before anything more is
 * buffered, and the rest is ignored; the caller closes the connection with its answer.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: reads the body of every POST request
export function readBody(
  res: HttpResponse,
  g: Guard,
  size: { max: number; declared: number },
  onBody: (body: Buffer) => void,
  onRefused: (why: BodyRefusal) => void,
): void {
  if (size.declared > size.max) return onRefused('too_large');
  if (g.body && !g.body.holdUpTo(size.declared)) return onRefused('busy');
  // A declared length is read straight into one buffer of that size (no second copy at the end);
  // uWS ends a body at its Content-Length, so it cannot grow past it.
  const whole = size.declared > 0 ? Buffer.allocUnsafe(size.declared) : undefined;
  const chunks: Buffer[] = [];
  let read = 0;
  let refused = false;
  res.onData((chunk, isLast) => {
    if (g.done || refused) return;
    const at = read;
    read += chunk.byteLength;
    const why =
      read > size.max || (whole && read > whole.length)
        ? 'too_large'
        : g.body && !g.body.holdUpTo(read)
          ? 'busy'
          : undefined;
    if (why) {
      refused = true;
      chunks.length = 0;
      return onRefused(why);
    }
    if (whole) whole.set(new Uint8Array(chunk), at);
    else chunks.push(Buffer.from(chunk.slice(0)));
    if (!isLast) return;
    if (whole) onBody(read === whole.length ? whole : whole.subarray(0, read));
    else onBody(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks));
  });
}

let sequence = 0;
const REQUEST_ID_RE = /^[A-Za-z0-9._-]+$/;
/** The caller's x-request-id when it is a sane token, else a new one `<prefix>-<n>`. */
export const requestIdOf = (given: string, prefix: string): string =>
  given && given.length <= 64 && REQUEST_ID_RE.test(given) ? given : `${prefix}-${(++sequence).toString(36)}`;
const EMPTY = Buffer.alloc(0);
const NO_PARAMS: readonly string[] = Object.freeze([]);
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
/** Past BODY_BYTES_IN_FLIGHT_MAX: the body is not read; the client may try again shortly. */
export const BUSY = errorReply('unavailable', 'Too many request bodies in progress; try again shortly', {
  'retry-after': '1',
});
const tooLarge = (max: number): EngineReply => errorReply('payload_too_large', `Body is larger than ${max} bytes`);
