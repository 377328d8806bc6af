import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP } from 'node:net';

export interface SafeFetchOptions {
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
}

export type FetchOutcome = { ok: true; status: number; body: string; finalUrl: string } | { ok: false; error: string };

// Addresses a fetch on behalf of a user must never reach: private, shared,
// link-local (cloud metadata), multicast and reserved ranges.
const PRIVATE = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  PRIVATE.addSubnet(net, bits, 'ipv6');
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');

/** Why an address is refused, or undefined when it is public. */
export function refusal(address: string, allowLoopback: boolean): string | undefined {
  let ip = address;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) ip = mapped[1] as string;
  const type = isIP(ip) === 6 ? 'ipv6' : 'ipv4';
  if (LOOPBACK.check(ip, type)) return allowLoopback ? undefined : `${address} is a loopback address`;
  if (PRIVATE.check(ip, type)) return `${address} is a private or reserved address`;
  return undefined;
}

function staticAnswer(host: string, table: ReadonlyMap<string, string> | undefined): string | undefined {
  if (!table) return undefined;
  if (table.has(host)) return table.get(host);
  for (const [pattern, ip] of table) if (pattern.startsWith('*.') && host.endsWith(pattern.slice(1))) return ip;
  return undefined;
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/** A DNS lookup that refuses names resolving to addresses we must not reach (checked at connect time, so no rebinding gap). */
function guardedLookup(o: SafeFetchOptions) {
  return (hostname: string, options: { all?: boolean }, callback: LookupCallback): void => {
    const fixed = staticAnswer(hostname, o.staticHosts);
    const done = (addrs: LookupAddress[]) => {
      const bad = addrs.map((a) => refusal(a.address, o.allowLoopback)).find(Boolean);
      if (bad || addrs.length === 0)
        return callback(Object.assign(new Error(`refused: ${hostname} resolves to ${bad ?? 'nothing'}`), { code: 'EREFUSED_PRIVATE' }), '');
      if (options.all) return callback(null, addrs);
      const first = addrs[0] as LookupAddress;
      callback(null, first.address, first.family);
    };
    if (fixed) return done([{ address: fixed, family: isIP(fixed) }]);
    dnsLookup(hostname, { all: true }, (err, addrs) => (err ? callback(err, '') : done(addrs)));
  };
}

function getOnce(url: URL, o: SafeFetchOptions): Promise<{ status: number; location?: string; body: string }> {
  return new Promise((resolve, reject) => {
    const https = url.protocol === 'https:';
    const port = url.port ? Number(url.port) : https ? (o.httpsPort ?? 443) : (o.httpPort ?? 80);
    const req = (https ? httpsRequest : httpRequest)(
      {
        host: url.hostname,
        port,
        path: `${url.pathname}${url.search}`,
        method: 'GET',
        lookup: guardedLookup(o),
        headers: { 'user-agent': 'adnet-site-verifier/1.0', accept: 'text/html,text/plain' },
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
        const finish = () => resolve({ status: res.statusCode ?? 0, location: res.headers.location, body: Buffer.concat(chunks).toString('utf8') });
        res.on('end', finish);
        res.on('close', finish);
        res.on('error', finish);
      },
    );
    const timer = setTimeout(() => req.destroy(Object.assign(new Error(`no answer within ${o.timeoutMs} ms`), { code: 'ETIMEDOUT' })), o.timeoutMs);
    req.on('close', () => clearTimeout(timer));
    req.on('error', reject);
    req.end();
  });
}

/** GET with redirects (each hop checked again), a time limit per hop, and a size limit. */
export async function safeGet(start: string, o: SafeFetchOptions): Promise<FetchOutcome> {
  let url = new URL(start);
  for (let hop = 0; ; hop++) {
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { ok: false, error: `refused: ${url.protocol} links are not followed` };
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal)) {
      const why = refusal(literal, o.allowLoopback);
      if (why) return { ok: false, error: `refused: ${why}` };
    }
    let res: { status: number; location?: string; body: string };
    try {
      res = await getOnce(url, o);
    } catch (e) {
      return { ok: false, error: (e as Error).message };
    }
    if (res.status >= 300 && res.status < 400 && res.location) {
      if (hop >= o.maxRedirects) return { ok: false, error: `more than ${o.maxRedirects} redirects` };
      url = new URL(res.location, url);
      continue;
    }
    return { ok: true, status: res.status, body: res.body, finalUrl: url.href };
  }
}
