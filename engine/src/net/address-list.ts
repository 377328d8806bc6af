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

export const inList = (list: BlockList, ip: string): boolean => isIP(ip) !== 0 && list.check(ip, family(ip));

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
