import { BlockList, isIP } from 'node:net';

const family = (addr: string): 'ipv4' | 'ipv6' => (isIP(addr) === 6 ? 'ipv6' : 'ipv4');

/** Addresses and CIDR blocks (already validated) as a BlockList, for matching client addresses. */
export function addressList(rules: readonly string[]): BlockList {
  const list = new BlockList();
  for (const rule of rules) {
    const [addr = '', prefix] = rule.split('/');
    if (prefix === undefined) list.addAddress(addr, family(addr));
    else list.addSubnet(addr, Number(prefix), family(addr));
  }
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
