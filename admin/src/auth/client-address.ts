import type { IncomingMessage } from 'node:http';
import ipaddr from 'ipaddr.js';
import proxyAddr from 'proxy-addr';

/**
 * The client's address: the socket's peer, or, when that peer is a trusted proxy, the rightmost
 * address in `X-Forwarded-For` that is not one. What a client writes into the header itself stands
 * left of what the proxies appended, so it is never reached while the last hop is untrusted.
 */
export function clientAddressOf(trusted: readonly string[]): (req: IncomingMessage) => string {
  const trust = proxyAddr.compile([...trusted]);
  return (req) => (req.socket.remoteAddress === undefined ? 'unknown' : proxyAddr(req, trust));
}

/**
 * The subject a per-address limit counts: an IPv4 address (IPv4-mapped IPv6 included) as itself, an
 * IPv6 address by its /64, since one subscriber commonly holds a whole /64.
 */
export function addressSubject(address: string): string {
  return subject(address, false);
}

/**
 * The client's network, as the sign-in back-off counts it: an IPv4 /24 and an IPv6 /64, the blocks one
 * subscriber, office or cloud tenant commonly holds, so hopping between addresses of one's own
 * network does not start the count afresh.
 */
export function networkSubject(address: string): string {
  return subject(address, true);
}

function subject(address: string, v4Network: boolean): string {
  // Only a trusted proxy can hand on a hop that is no address; its clients share one subject.
  if (!ipaddr.isValid(address)) return 'not-an-address';
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') {
    const octets = (parsed as ipaddr.IPv4).octets;
    return v4Network ? `${octets.slice(0, 3).join('.')}.0/24` : parsed.toString();
  }
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4).map((p) => p.toString(16));
  return `${parts.join(':')}::/64`;
}

/**
 * Whether the client reached us over TLS: always when the public URL is https (TLS ends at a proxy in
 * front), else as `X-Forwarded-Proto` says when the socket's peer is a trusted proxy (its last value, the
 * one the nearest proxy wrote). Only the caller's own cookie depends on it.
 */
export function httpsOf(trusted: readonly string[], publicUrl: string): (req: IncomingMessage) => boolean {
  const trust = proxyAddr.compile([...trusted]);
  const publicHttps = publicUrl.startsWith('https:');
  return (req) => {
    if (publicHttps) return true;
    const peer = req.socket.remoteAddress;
    const proto = req.headers['x-forwarded-proto'];
    if (peer === undefined || typeof proto !== 'string' || !trust(peer, 0)) return false;
    return proto.split(',').pop()?.trim().toLowerCase() === 'https';
  };
}
