import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { addressSubject, clientAddressOf, httpsOf, networkSubject } from './client-address.ts';

const req = (peer: string | undefined, forwardedFor?: string) =>
  ({
    socket: { remoteAddress: peer },
    headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor },
  }) as unknown as IncomingMessage;

describe('client address behind trusted proxies', () => {
  const loopback = clientAddressOf(['127.0.0.0/8', '::1']);

  it('is the peer when the peer is no trusted proxy, whatever the header says', () => {
    expect(loopback(req('203.0.113.9', '198.51.100.1'))).toBe('203.0.113.9');
  });

  it('is the rightmost untrusted hop when the peer is trusted', () => {
    expect(loopback(req('127.0.0.1', '198.51.100.1, 203.0.113.9'))).toBe('203.0.113.9');
    expect(loopback(req('::ffff:127.0.0.1', '203.0.113.9'))).toBe('203.0.113.9');
    expect(loopback(req('::1', '2001:db8::5'))).toBe('2001:db8::5');
  });

  it('walks through several trusted proxies, and takes the peer when the header is absent', () => {
    const both = clientAddressOf(['127.0.0.1', '10.0.0.0/8']);
    expect(both(req('127.0.0.1', '203.0.113.9, 10.1.2.3'))).toBe('203.0.113.9');
    expect(both(req('127.0.0.1'))).toBe('127.0.0.1');
    expect(both(req(undefined, '203.0.113.9'))).toBe('unknown');
  });
});

describe('the subject a per-address limit counts', () => {
  it('is an IPv4 address itself, mapped or not, and an IPv6 address by its /64', () => {
    expect(addressSubject('203.0.113.9')).toBe('203.0.113.9');
    expect(addressSubject('::ffff:203.0.113.9')).toBe('203.0.113.9');
    expect(addressSubject('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(addressSubject('2001:0db8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(addressSubject('garbage, really')).toBe('not-an-address');
  });

  it("is the client's /24 or /64 for the sign-in back-off", () => {
    expect(networkSubject('203.0.113.9')).toBe('203.0.113.0/24');
    expect(networkSubject('::ffff:203.0.113.250')).toBe('203.0.113.0/24');
    expect(networkSubject('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(networkSubject('garbage')).toBe('not-an-address');
  });
});

describe('whether the client came over https', () => {
  const proto = (peer: string, value?: string) =>
    ({
      socket: { remoteAddress: peer },
      headers: value === undefined ? {} : { 'x-forwarded-proto': value },
    }) as unknown as IncomingMessage;
  const trusted = ['127.0.0.0/8', '::1'];

  it("believes X-Forwarded-Proto only from a trusted proxy, the nearest proxy's value", () => {
    const https = httpsOf(trusted, 'http://127.0.0.1:8080');
    expect(https(proto('127.0.0.1', 'https'))).toBe(true);
    expect(https(proto('::ffff:127.0.0.1', 'http, HTTPS'))).toBe(true);
    expect(https(proto('127.0.0.1', 'https, http'))).toBe(false);
    expect(https(proto('127.0.0.1'))).toBe(false);
    expect(https(proto('203.0.113.9', 'https'))).toBe(false);
  });

  it('is always so when the public URL is https', () => {
    expect(httpsOf(trusted, 'https://ads.example.com')(proto('203.0.113.9', 'http'))).toBe(true);
  });
});
