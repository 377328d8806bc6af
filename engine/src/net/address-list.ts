import { BlockList, isIP } from 'node:net';

const family = (addr: string): 'ipv4' | 'ipv6' => (isIP(addr) === 6 ? 'ipv6' : 'ipv4');

/** A dotted IPv4 address (as isIP accepts it) as an unsigned 32-bit number. */
function ipv4Number(addr: string): number {
  let n = 0;
  let part = 0;
  for (let i = 0; i < addr.length; i++) {
    const c = addr.charCodeAt(i);
    if (c === 46) {
      n = n * 256 + part;
      part = 0;
    } else part = part * 10 + (c - 48);
  }
  return n * 256 + part;
}

/**
 * Lists made only of IPv4 rules, as [first, last] address numbers: an IPv4 address is matched by
 * arithmetic. Every request checks the trusted proxies with the client's own address (the hops of
 * X-Forwarded-For), and visitors are too many for the memo below: each miss built a SocketAddress.
 */
const ipv4Ranges = new WeakMap<BlockList, Float64Array>();

/** Addresses and CIDR blocks (already validated) as a BlockList, for matching client addresses. */
export function addressList(rules: readonly string[]): BlockList {
  const list = new BlockList();
  const ranges: number[] = [];
  let onlyIpv4 = true;
  for (const rule of rules) {
    const [addr = '', prefix] = rule.split('/');
    if (prefix === undefined) list.addAddress(addr, family(addr));
    else list.addSubnet(addr, Number(prefix), family(addr));
    if (family(addr) === 'ipv6') onlyIpv4 = false;
    else {
      const bits = prefix === undefined ? 32 : Number(prefix);
      const size = 2 ** (32 - bits);
      const first = Math.floor(ipv4Number(addr) / size) * size;
      ranges.push(first, first + size - 1);
    }
  }
  if (onlyIpv4) ipv4Ranges.set(list, Float64Array.from(ranges));
  return list;
}

/**
 * Answers per list and address, remembered: `BlockList.check` builds a SocketAddress for every call,
 * which showed in the engine's profile (trusted proxies and partners' allow-lists are checked on every
 * request, mostly for the same few addresses). Lists are never changed once built (a configuration
 * change builds new ones), so a remembered answer stays right; the memo is cleared when it is full.
 */
const answers = new WeakMap<BlockList, Map<string, boolean>>();
const ANSWERS_MAX = 4_096;

export function inList(list: BlockList, ip: string): boolean {
  const ranges = ipv4Ranges.get(list);
  if (ranges && isIP(ip) === 4) {
    const n = ipv4Number(ip);
    for (let i = 0; i < ranges.length; i += 2)
      if (n >= (ranges[i] as number) && n <= (ranges[i + 1] as number)) return true;
    return false;
  }
  let known = answers.get(list);
  if (!known) answers.set(list, (known = new Map<string, boolean>()));
  let hit = known.get(ip);
  if (hit === undefined) {
    hit = isIP(ip) !== 0 && list.check(ip, family(ip));
    if (known.size >= ANSWERS_MAX) known.clear();
    known.set(ip, hit);
  }
  return hit;
}

/**
 * The client behind trusted proxies (a load balancer): walking X-Forwarded-For
 * from the right, the first address that is not a trusted proxy. Addresses a
 * client put in the header itself stand to the left of what the proxies added,
 * so they are never reached while a trusted proxy appended the real one.
 */
export function clientIp(socketIp: string, forwardedFor: string, trusted: BlockList | undefined): string {
  if (!trusted || !forwardedFor || !inList(trusted, socketIp)) return socketIp;
  const hops = forwardedFor.split(',');
  for (let i = hops.length - 1; i >= 0; i--) {
    const hop = (hops[i] as string).trim();
    if (!isIP(hop)) return socketIp;
    if (!inList(trusted, hop)) return hop;
  }
  return (hops[0] as string).trim();
}
