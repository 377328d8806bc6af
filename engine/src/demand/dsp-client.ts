import { addressRefusal } from '@adnet/runtime/address-policy';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupAddress } from 'node:dns';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import type { Socket } from 'node:net';

/** How a partner answered a bid request. */
export type DspAnswer =
  | { kind: 'bid'; body: string }
  | { kind: 'nobid' }
  | { kind: 'timeout' }
  | { kind: 'error'; why: string }
  | { kind: 'refused'; why: string };

export interface DspClientOptions {
  /** Tests and local development: http on loopback, and loopback addresses (DEMAND_ALLOW_LOOPBACK). */
  allowLoopback: boolean;
  /** A late answer is still read (and counted late) until this, then the connection is dropped. */
  hardLimitMs?: number;
  maxBodyBytes?: number;
  /** Called for an answer that came after its deadline. */
  onLate?: (partnerId: number) => void;
}

class Refused extends Error {}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]', '::1']);

/**
 * May we call this URL at all: https, or http to a loopback host when loopback is allowed. The
 * addresses a name resolves to, and the one actually connected to, are checked on the connection.
 */
export function callableUrl(raw: string, allowLoopback: boolean): URL | undefined {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return undefined;
  }
  if (u.username || u.password) return undefined;
  if (u.protocol === 'https:') return u;
  if (u.protocol === 'http:' && allowLoopback && (LOOPBACK_HOSTS.has(u.hostname) || u.hostname.startsWith('127.')))
    return u;
  return undefined;
}

/**
 * Outgoing calls to demand partners: bid requests (POST) and notices (GET), over kept-alive
 * connections (one agent per scheme, sockets pooled per host). The SSRF rules of postbacks hold:
 * every address a name resolves to must be public (loopback only with the flag), checked again on
 * the connected socket (a literal address skips the lookup; a rebinding resolver is caught too).
 * A pooled socket was checked when it connected.
 */
export class DspClient {
  private readonly http: HttpAgent;
  private readonly https: HttpsAgent;
  private readonly hardLimitMs: number;
  private readonly maxBody: number;

  constructor(private readonly o: DspClientOptions) {
    const lookup = (
      hostname: string,
      options: { all?: boolean },
      cb: (err: Error | null, address: string | LookupAddress[], family?: number) => void,
    ) => {
      dnsLookup(hostname, { all: true }, (err, addrs) => {
        if (err) return cb(err, '');
        for (const a of addrs) {
          const why = addressRefusal(a.address, o.allowLoopback);
          if (why) return cb(new Refused(`${hostname} resolves to a ${why} address`), '');
        }
        if (options.all) return cb(null, addrs);
        const first = addrs[0];
        if (!first) return cb(new Refused(`${hostname}: no address`), '');
        cb(null, first.address, first.family);
      });
    };
    const agentOptions = {
      keepAlive: true,
      keepAliveMsecs: 10_000,
      maxSockets: 256,
      maxFreeSockets: 256,
      scheduling: 'lifo' as const,
      lookup,
    };
    this.http = new HttpAgent(agentOptions);
    this.https = new HttpsAgent(agentOptions);
    this.hardLimitMs = o.hardLimitMs ?? 1_000;
    this.maxBody = o.maxBodyBytes ?? 256 * 1024;
  }

  /**
   * One bid request in the partner's OpenRTB version (its `x-openrtb-version`); resolves by `timeoutMs` at the
   * latest (a later answer is read and counted late, never used).
   */
  postBid(
    partner: { id: number; endpoint: string },
    body: string,
    timeoutMs: number,
    version = '2.5',
  ): Promise<DspAnswer> {
    const partnerId = partner.id;
    const url = callableUrl(partner.endpoint, this.o.allowLoopback);
    if (!url) return Promise.resolve({ kind: 'refused', why: 'endpoint is not https' });
    return new Promise((resolve) => {
      let settled = false;
      const done = (a: DspAnswer) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(a);
      };
      const timer = setTimeout(() => {
        settled = true;
        resolve({ kind: 'timeout' });
      }, timeoutMs);
      const req = this.send(url, 'POST', {
        'content-type': 'application/json',
        'x-openrtb-version': version,
        'content-length': String(Buffer.byteLength(body)),
      });
      const hard = setTimeout(() => req.destroy(new Error('hard limit')), this.hardLimitMs);
      req.on('error', (err) => {
        clearTimeout(hard);
        done(err instanceof Refused ? { kind: 'refused', why: err.message } : { kind: 'error', why: err.message });
      });
      req.on('response', (res: IncomingMessage) => {
        this.readBody(res, (text, tooBig) => {
          clearTimeout(hard);
          if (settled) {
            this.o.onLate?.(partnerId);
            return;
          }
          if (res.statusCode === 204) done({ kind: 'nobid' });
          else if (res.statusCode !== 200) done({ kind: 'error', why: `HTTP ${res.statusCode}` });
          else if (tooBig) done({ kind: 'error', why: 'body too large' });
          else if (text.trim() === '') done({ kind: 'nobid' });
          else done({ kind: 'bid', body: text });
        });
      });
      req.end(body);
    });
  }

  /** One notice (win, billing or loss): true on a 2xx answer within `timeoutMs`. */
  notify(rawUrl: string, timeoutMs: number): Promise<boolean> {
    const url = httpOrHttps(rawUrl);
    if (!url) return Promise.resolve(false);
    return new Promise((resolve) => {
      const req = this.send(url, 'GET', {});
      const timer = setTimeout(() => req.destroy(new Error('timeout')), timeoutMs);
      req.on('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
      req.on('response', (res: IncomingMessage) => {
        this.readBody(res, () => {
          clearTimeout(timer);
          resolve((res.statusCode ?? 0) >= 200 && (res.statusCode ?? 0) < 300);
        });
      });
      req.end();
    });
  }

  close(): void {
    this.http.destroy();
    this.https.destroy();
  }

  private send(url: URL, method: string, headers: Record<string, string>): ClientRequest {
    const https = url.protocol === 'https:';
    const req = (https ? httpsRequest : httpRequest)({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: url.port ? Number(url.port) : https ? 443 : 80,
      path: `${url.pathname}${url.search}`,
      method,
      agent: https ? this.https : this.http,
      headers: { 'user-agent': 'adnet-ssp/1.0', ...headers },
    });
    req.once('socket', (socket: Socket) => {
      // A pooled socket was checked when it connected; a new one is checked before a byte is written.
      if (!socket.connecting) return;
      socket.once('connect', () => {
        const remote = socket.remoteAddress ?? '';
        const why = isIP(remote) ? addressRefusal(remote, this.o.allowLoopback) : 'unknown';
        if (why) req.destroy(new Refused(`connected to a ${why} address`));
      });
    });
    return req;
  }

  private readBody(res: IncomingMessage, cb: (text: string, tooBig: boolean) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooBig = false;
    res.on('data', (c: Buffer) => {
      size += c.length;
      if (size > this.maxBody) tooBig = true;
      else chunks.push(c);
    });
    res.on('end', () => cb(Buffer.concat(chunks).toString('utf8'), tooBig));
    res.on('error', () => cb('', true));
  }
}

/** Notices may be plain http (many DSPs' are): still only to public addresses (checked on the connection). */
function httpOrHttps(raw: string): URL | undefined {
  try {
    const u = new URL(raw);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !u.username && !u.password ? u : undefined;
  } catch {
    return undefined;
  }
}
