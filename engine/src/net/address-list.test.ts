import { describe, expect, it } from 'vitest';
import type { BlockList } from 'node:net';
import { addressList, clientIp, inList } from './address-list.ts';

describe('clientIp behind trusted proxies', () => {
  const lb = addressList(['10.0.0.0/8', '127.0.0.1', '::1']);
  it.each([
    ['203.0.113.9', '198.51.100.1', '203.0.113.9', 'a direct client: the header is ignored'],
    ['10.1.2.3', '198.51.100.1', '198.51.100.1', 'through the balancer'],
    ['10.1.2.3', '6.6.6.6, 198.51.100.1', '198.51.100.1', 'a forged hop left of the real one is not reached'],
    ['10.1.2.3', '198.51.100.1, 10.9.9.9', '198.51.100.1', 'two trusted hops'],
    ['10.1.2.3', 'garbage, 198.51.100.1', '198.51.100.1', 'junk left of the real hop'],
    ['10.1.2.3', '198.51.100.1, junk', '10.1.2.3', 'junk added by a trusted hop: keep the socket address'],
    ['10.1.2.3', '', '10.1.2.3', 'no header'],
    ['::1', '2001:db8::5', '2001:db8::5', 'IPv6'],
  ])('%s + "%s" -> %s (%s)', (socket, xff, want) => {
    expect(clientIp(socket, xff, lb)).toBe(want);
  });
  it('trusts nobody without a list, and matches exact addresses and blocks', () => {
    expect(clientIp('10.1.2.3', '198.51.100.1', undefined)).toBe('10.1.2.3');
    expect(inList(lb, '10.200.0.1')).toBe(true);
    expect(inList(lb, '11.0.0.1')).toBe(false);
    expect(inList(lb, 'not-an-ip')).toBe(false);
  });
});

describe('inList remembers answers', () => {
  it('stays right past its memo size, for the same list and for another one', () => {
    const lb = addressList(['10.0.0.0/8']);
    const other = addressList(['11.0.0.0/8']);
    for (let i = 0; i < 5_000; i++)
      expect(inList(lb, `${i % 2 ? 10 : 12}.0.${(i >> 8) & 255}.${i & 255}`)).toBe(i % 2 === 1);
    expect(inList(lb, '10.0.0.1')).toBe(true);
    expect(inList(other, '10.0.0.1')).toBe(false);
    expect(inList(other, '11.0.0.1')).toBe(true);
  });
});

describe('IPv4-only lists, matched by arithmetic', () => {
  it('agree with BlockList on every rule shape, and a list with an IPv6 rule still matches as before', () => {
    const rules = [
      '0.0.0.0/32',
      '10.1.2.3/8',
      '192.168.7.9/31',
      '172.16.0.0/12',
      '203.0.113.77',
      '255.255.255.255/32',
      '100.64.5.5/30',
    ];
    const lists = [addressList(rules), addressList(['0.0.0.0/0']), addressList([...rules, '2001:db8::/32'])];
    let seed = 7;
    const byte = () => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) >> 8) & 255;
    const probes = [
      '0.0.0.0',
      '0.0.0.1',
      '10.0.0.0',
      '10.255.255.255',
      '11.0.0.0',
      '9.255.255.255',
      '192.168.7.8',
      '192.168.7.10',
      '192.168.7.11',
    ];
    for (let i = 0; i < 3_000; i++) probes.push(`${byte()}.${byte()}.${byte()}.${byte()}`);
    for (const list of lists) {
      // BlockList.check is the reference: inList answers the same without it.
      for (const ip of [
        ...probes,
        '203.0.113.77',
        '255.255.255.255',
        '100.64.5.7',
        '100.64.5.8',
        '172.31.255.255',
        '172.32.0.0',
      ])
        expect(inList(list, ip), ip).toBe(list.check(ip, 'ipv4'));
    }
    expect(inList(lists[0] as BlockList, '2001:db8::1')).toBe(false);
    expect(inList(lists[2] as BlockList, '2001:db8::1')).toBe(true);
  });
});
