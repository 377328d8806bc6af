import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import type { ClientRequest } from 'node:http';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';
import { addressRefusal } from '@adnet/runtime/address-policy';

export interface SafeFetchOptions {
  /** Time limit of the whole fetch: name lookups, every redirect and the body. */
  timeoutMs: number;
  maxBytes: number;
  maxRedirects: number;
  /** Tests and local development only: let loopback addresses through. */
  allowLoopback: boolean;
  /** Tests and local development only: `host=ip` answers used instead of DNS (`*.test=127.0.0.1` covers subdomains). */
  staticHosts?: ReadonlyMap<string, string>;
  /** Tests and local development only: ports instead of 80 / 443. */
  httpPort?: number;
  httpsPort?: number;
  /** Every URL about to be fetched, the first and each redirect's, must pass, or the fetch stops with `other_host`. */
  allowUrl?: (url: URL) => boolean;
  userAgent?: string;
}

/**
 * Why a fetch failed, with the only words a client is ever shown for it: never an address, a DNS
 * answer or a port. What happened in full is in the outcome's `detail`, for the log.
 */
export const FETCH_FAILURES = {
  invalid_url: 'the address is not a valid http(s) URL',
  refused_address: 'the host is not on the public internet',
  dns: 'the host name could not be resolved',
  timeout: 'no answer within the time limit',
  connection: 'the connection failed',
  bad_redirect: 'a redirect could not be followed',
  too_many_redirects: 'too many redirects',
  other_host: 'a redirect led to another host',
} as const;
export type FetchFailure = keyof typeof FETCH_FAILURES;

export type FetchOutcome =
  { ok: true; status: number; body: string; finalUrl: string } | { ok: false; reason: FetchFailure; detail: string };

/** A failure with its reason; thrown inside this module only, `safeGet` turns it into an outcome. */
class Refused extends Error {
  constructor(
    readonly reason: FetchFailure,
    detail: string,
  ) {
    super(detail);
  }
}

function staticAnswer(host: string, table: ReadonlyMap<string, string> | undefined): string | undefined {
  if (!table) return undefined;
  if (table.has(host)) return table.get(host);
  for (const [pattern, ip] of table) if (pattern.startsWith('*.') && host.endsWith(pattern.slice(1))) return ip;
  return undefined;
}

const LOCALHOST: LookupAddress[] = [
  { address: '127.0.0.1', family: 4 },
  { address: '::1', family: 6 },
];

/**
 * A name's A and AAAA answers. Asked of the DNS through c-ares rather than the system's getaddrinfo:
 * a name server that never answers then holds no thread of the pool that password hashing and file
 * reads share, and the query gives up by the fetch's deadline.
 */
async function resolveName(host: string, o: SafeFetchOptions, deadline: number): Promise<LookupAddress[]> {
  const fixed = staticAnswer(host, o.staticHosts);
  if (fixed) return [{ address: fixed, family: isIP(fixed) }];
  // RFC 6761: these names are the machine itself, whatever a resolver says.
  if (host === 'localhost' || host.endsWith('.localhost')) return LOCALHOST;
  const resolver = new Resolver({ timeout: Math.max(1, deadline - Date.now()), tries: 1 });
  const [v4, v6] = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)]);
  const found = [
    ...(v4.status === 'fulfilled' ? v4.value.map((address) => ({ address, family: 4 })) : []),
    ...(v6.status === 'fulfilled' ? v6.value.map((address) => ({ address, family: 6 })) : []),
  ];
  if (found.length === 0)
    throw new Refused('dns', `${host}: ${v4.status === 'rejected' ? (v4.reason as Error).message : 'no address'}`);
  return found;
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/** Name lookup for the HTTP client: every answer must be a public address, or the name is refused. */
function guardedLookup(o: SafeFetchOptions, deadline: number) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    resolveName(hostname, o, deadline)
      .then((addrs) => {
        for (const a of addrs) {
          const why = addressRefusal(a.address, o.allowLoopback);
          // One refused answer refuses the name: the connection could be made to any of them.
          if (why) throw new Refused('refused_address', `${hostname} resolves to ${a.address} (${why})`);
        }
        if (options.all) return callback(null, addrs);
        const first = addrs[0] as LookupAddress;
        callback(null, first.address, first.family);
      })
      .catch((e: unknown) => callback(e instanceof Error ? e : new Error(String(e)), ''));
  };
}

/**
 * The address actually connected to is checked again once the connection is up, before a byte of the
 * request is written: whatever a resolver said a moment earlier (DNS rebinding), and for literal hosts.
 */
export function checkConnectedAddress(req: ClientRequest, o: Pick<SafeFetchOptions, 'allowLoopback'>): void {
  req.once('socket', (socket: Socket) =>
    socket.once('connect', () => {
      const remote = socket.remoteAddress ?? '';
      const why = addressRefusal(remote, o.allowLoopback);
      if (why) req.destroy(new Refused('refused_address', `connected to ${remote} (${why})`));
    }),
  );
}

interface Answer {
  status: number;
  location: string | undefined;
  body: string;
}

function getOnce(url: URL, o: SafeFetchOptions, deadline: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const port = url.port ? Number(url.port) : https ? (o.httpsPort ?? 443) : (o.httpPort ?? 80);
    const req = (https ? httpsRequest : httpRequest)(
      {
        host: url.hostname.replace(/^\[|\]$/g, ''),
        port,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        lookup: guardedLookup(o, deadline),
        // No pooled connections: each one goes through the lookup and the connect check above.
        agent: false,
        headers: { 'user-agent': o.userAgent ?? 'adnet-site-verifier/1.0', accept: 'text/html,text/plain' },
      },
      (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          if (size >= o.maxBytes) return;
          const room = o.maxBytes - size;
          chunks.push(chunk.length > room ? chunk.subarray(0, room) : chunk);
          size += Math.min(chunk.length, room);
          // Enough read: what lies past the limit is never looked at.
          if (size >= o.maxBytes) res.destroy();
        });
        const finish = () =>
          resolve({
            status: res.statusCode ?? 0,
            location: res.headers.location,
            body: Buffer.concat(chunks).toString('utf8'),
          });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    checkConnectedAddress(req, o);
    const timer = setTimeout(
      () => req.destroy(new Refused('timeout', `no answer from ${url.host} within ${o.timeoutMs} ms`)),
      Math.max(0, deadline - Date.now()),
    );
    req.on('close', () => clearTimeout(timer));
    req.on('error', (e) => reject(e instanceof Refused ? e : new Refused('connection', `${url.host}: ${e.message}`)));
    req.end();
  });
}

function parseUrl(href: string, reason: FetchFailure, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(href, base);
  } catch {
    throw new Refused(reason, `not a URL: ${JSON.stringify(href.slice(0, 200))}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new Refused(reason, `${url.protocol} URLs are not fetched`);
  return url;
}

async function follow(start: string, o: SafeFetchOptions, deadline: number): Promise<FetchOutcome> {
  let url = parseUrl(start, 'invalid_url');
  for (let hop = 0; ; hop++) {
    if (o.allowUrl && !o.allowUrl(url)) throw new Refused('other_host', `${url.host} is not allowed here`);
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal)) {
      const why = addressRefusal(literal, o.allowLoopback);
      if (why) throw new Refused('refused_address', `${literal} (${why})`);
    }
    const res = await getOnce(url, o, deadline);
    if (res.status >= 300 && res.status < 400 && res.location !== undefined) {
      if (hop >= o.maxRedirects)
        throw new Refused(
          'too_many_redirects',
          `more than ${o.maxRedirects} redirects, the last to ${res.location.slice(0, 200)}`,
        );
      url = parseUrl(res.location, 'bad_redirect', url);
      continue;
    }
    return { ok: true, status: res.status, body: res.body, finalUrl: url.href };
  }
}

/**
 * GET on a user's behalf: every address reached must be public (checked on each DNS answer and again
 * on the connection), redirects are followed and checked the same way, the whole fetch has one time
 * limit and the body a size limit. It never throws: every failure is an outcome with its reason.
 */
export async function safeGet(start: string, o: SafeFetchOptions): Promise<FetchOutcome> {
  try {
    return await follow(start, o, Date.now() + o.timeoutMs);
  } catch (e) {
    if (e instanceof Refused) return { ok: false, reason: e.reason, detail: e.message };
    return { ok: false, reason: 'connection', detail: e instanceof Error ? e.message : String(e) };
  }
}
