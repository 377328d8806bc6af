import { describe, expect, it } from 'vitest';
import { addressRange, addressRefusal } from './address-policy.ts';

// One address from every block of the IANA IPv4 and IPv6 special-purpose registries (and multicast),
// plus the blocks that carry an IPv4 address (refused whatever it is), each with the block name the log gets.
const REFUSED: [string, string][] = [
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['10.1.2.3', 'private'],
  ['100.64.0.1', 'carrierGradeNat'],
  ['100.127.255.254', 'carrierGradeNat'],
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['169.254.169.254', 'linkLocal'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.0.0.9', 'reserved'],
  ['192.0.0.170', 'reserved'],
  ['192.0.2.10', 'reserved'],
  ['192.31.196.1', 'as112'],
  ['192.52.193.1', 'amt'],
  ['192.88.99.1', 'reserved'],
  ['192.168.1.1', 'private'],
  ['192.175.48.6', 'as112'],
  ['198.18.0.1', 'reserved'],
  ['198.19.255.1', 'reserved'],
  ['198.51.100.7', 'reserved'],
  ['203.0.113.7', 'reserved'],
  ['224.0.0.251', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['240.0.0.1', 'reserved'],
  ['255.255.255.255', 'broadcast'],
  ['::', 'unspecified'],
  ['::1', 'loopback'],
  ['::ffff:10.0.0.1', 'private'],
  ['::ffff:169.254.169.254', 'linkLocal'],
  ['::ffff:7f00:1', 'loopback'],
  // IPv4-compatible (deprecated) and IPv4-translated forms.
  ['::7f00:1', 'unallocated'],
  ['::ffff:0:a00:1', 'rfc6145'],
  ['64:ff9b::10.0.0.1', 'nat64:private'],
  ['64:ff9b::127.0.0.1', 'nat64:loopback'],
  ['64:ff9b::169.254.169.254', 'nat64:linkLocal'],
  ['64:ff9b::100.64.0.1', 'nat64:carrierGradeNat'],
  // The translation blocks, whatever the IPv4 address inside: NAT64 (well-known and local-use) and 6to4.
  ['64:ff9b::8.8.8.8', 'nat64'],
  ['64:ff9b::808:808', 'nat64'],
  ['64:ff9b::101:101', 'nat64'],
  ['64:ff9b:1::808:808', 'nat64'],
  ['64:ff9b:1:ffff:ffff::1', 'nat64'],
  ['2002:808:808::1', '6to4'],
  ['2002:101:101:1::1', '6to4'],
  ['2002::', '6to4:unspecified'],
  ['100::1', 'discard'],
  ['100:0:0:1::1', 'unallocated'],
  ['2001::1', 'teredo'],
  ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
  ['2001:1::1', 'reserved'],
  ['2001:2::1', 'benchmarking'],
  ['2001:3::1', 'amt'],
  ['2001:4:112::1', 'as112v6'],
  ['2001:10::1', 'deprecatedOrchid'],
  ['2001:20::1', 'orchid2'],
  ['2001:30::1', 'droneRemoteIdProtocolEntityTags'],
  ['2001:db8::1', 'reserved'],
  ['2002:a00:1::1', '6to4:private'],
  ['2002:7f00:1::', '6to4:loopback'],
  ['2002:c0a8:101::1', '6to4:private'],
  ['2620:4f:8000::1', 'as112v6'],
  ['3fff::1', 'reserved'],
  ['5f00::1', 'segmentRouting'],
  ['fc00::1', 'uniqueLocal'],
  ['fd12:3456::1', 'uniqueLocal'],
  ['fe80::1', 'linkLocal'],
  ['fec0::1', 'deprecatedSiteLocal'],
  ['ff02::1', 'multicast'],
  ['4000::1', 'unallocated'],
  ['not-an-address', 'invalid'],
  ['', 'invalid'],
];

const ALLOWED = [
  '8.8.8.8',
  '1.1.1.1',
  '93.184.215.14',
  '100.63.255.255', // just below the shared address space
  '100.128.0.1', // just above it
  '172.15.255.255',
  '172.32.0.1',
  '192.0.1.1',
  '198.17.255.255',
  '198.20.0.1',
  '223.255.255.254',
  '::ffff:8.8.8.8',
  '2606:4700:4700::1111',
  '2a00:1450:4001:80b::200e',
  '2001:4860:4860::8888',
  // Just outside the translation blocks.
  '2001:ffff:ffff::1',
  '2003::1',
];

describe('addressRange', () => {
  it.each(REFUSED)('%s is refused as %s', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(addressRefusal(address, false)).toBe(range);
  });

  it.each(ALLOWED)('%s is a public address', (address) => {
    expect(addressRange(address)).toBe('unicast');
    expect(addressRefusal(address, false)).toBeUndefined();
  });

  it('lets plain loopback through only when switched on, never loopback reached through NAT64 or 6to4', () => {
    for (const a of ['127.0.0.1', '127.3.4.5', '::1', '::ffff:127.0.0.1'])
      expect(addressRefusal(a, true)).toBeUndefined();
    for (const a of ['64:ff9b::127.0.0.1', '2002:7f00:1::', '10.0.0.1', '169.254.169.254'])
      expect(addressRefusal(a, true)).toBeDefined();
  });
});
