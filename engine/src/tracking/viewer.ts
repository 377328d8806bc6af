import { isIPv4, isIPv6 } from 'node:net';

// What a ticket remembers of its viewer, so a later beacon or click can be matched to the impression it
// claims to follow without storing anything per impression: the network, not the address, since one
// viewer's address moves within its network (mobile carriers, privacy relays).

/** IPv4 cut to /24 (`a.b.c.0`), IPv6 to /48 (`x:y:z::`); '' for anything else. */
export function ipPrefixOf(ip: string): string {
  if (isIPv4(ip)) return `${ip.slice(0, ip.lastIndexOf('.'))}.0`;
  if (!isIPv6(ip)) return '';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1];
  if (mapped) return ipPrefixOf(mapped);
  const [head = '', tail = ''] = ip.toLowerCase().split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::')
    ? [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
    : left;
  return `${groups
    .slice(0, 3)
    .map((g) => g.replace(/^0+(?=.)/, ''))
    .join(':')}::`;
}

/** FNV-1a of the user agent, 8 hex digits: enough to tell browsers apart, and signed inside the ticket. */
export function uaHashOf(ua: string): string {
  if (!ua) return '';
  let h = 0x811c9dc5;
  for (let i = 0; i < ua.length; i++) {
    h ^= ua.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}
