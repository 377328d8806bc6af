import ipaddr from 'ipaddr.js';
import type { IPv4, IPv6 } from 'ipaddr.js';

// ipaddr.js keeps the IANA special-purpose registries (IPv4 and IPv6) as named ranges; `range()` is
// 'unicast' only outside all of them. Two facts it leaves to the caller are added here: outside
// 2000::/3 the IPv6 space is not allocated for global unicast at all (RFC 4291), and the translation
// blocks are refused whatever IPv4 address they carry. NAT64 (RFC 6052, RFC 8215) and 6to4 (RFC 3056)
// are special-purpose blocks: a fetch through one reaches an IPv4 host by a translator or relay of
// someone's choosing, which our checks of the IPv4 address cannot see past, and a public tracker or
// partner has an IPv4 or native IPv6 address of its own.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');
const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48');
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16');

/** The IPv4 address a NAT64 well-known-prefix or 6to4 address stands for, named in the log beside the block. */
function embeddedIPv4(ip: IPv6): IPv4 | undefined {
  const p = ip.parts;
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff]);
  if (ip.match(NAT64_WELL_KNOWN)) return v4(p[6] as number, p[7] as number);
  if (ip.match(SIX_TO_FOUR)) return v4(p[1] as number, p[2] as number);
  return undefined;
}

/**
 * The special-purpose block an address lies in, or 'unicast' for an ordinary public address.
 * An IPv4-mapped IPv6 address is its IPv4 address. NAT64 (`64:ff9b::/96`, `64:ff9b:1::/48`) and 6to4
 * (`2002::/16`) are always special: `nat64` or `6to4`, with `:<range>` when the IPv4 address inside is
 * special too. Anything that is not an IP address is 'invalid'.
 */
export function addressRange(address: string): string {
  if (!ipaddr.isValid(address)) return 'invalid';
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.range();
  const v6 = ip as IPv6;
  const via = v6.match(SIX_TO_FOUR)
    ? '6to4'
    : v6.match(NAT64_WELL_KNOWN) || v6.match(NAT64_LOCAL_USE)
      ? 'nat64'
      : undefined;
  if (via) {
    const inner = embeddedIPv4(v6)?.range() ?? 'unicast';
    return inner === 'unicast' ? via : `${via}:${inner}`;
  }
  const range = v6.range();
  if (range !== 'unicast') return range;
  return v6.match(GLOBAL_UNICAST_V6) ? 'unicast' : 'unallocated';
}

/**
 * Why a fetch on a user's behalf must not reach this address (the block's name, for the log), or
 * undefined when it may. `allowLoopback` (tests and local development) lets plain loopback through.
 */
export function addressRefusal(address: string, allowLoopback: boolean): string | undefined {
  const range = addressRange(address);
  if (range === 'unicast' || (range === 'loopback' && allowLoopback)) return undefined;
  return range;
}
