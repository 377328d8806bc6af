import { describe, expect, it } from 'vitest';
import { countryOfAddress } from './geo.ts';

// Long-standing allocations whose country a database refresh will not move.
describe('country of a client address (embedded GeoLite2 Country)', () => {
  it('finds the country of IPv4 and IPv6 addresses, lower-case alpha-2', () => {
    expect(countryOfAddress('8.8.8.8')).toBe('us');
    expect(countryOfAddress('193.0.0.1')).toBe('nl'); // RIPE NCC
    expect(countryOfAddress('202.12.27.33')).toBe('jp'); // WIDE, the M root server
    expect(countryOfAddress('2a01:4f8::1')).toBe('de'); // Hetzner
    expect(countryOfAddress('2001:67c:2e8::1')).toBe('nl'); // RIPE NCC
  });

  it('gives private, reserved, loopback and malformed addresses no country', () => {
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.0.1',
      '100.64.0.1',
      '192.0.2.1',
      '::1',
      'fe80::1',
      '',
      'not an address',
      '999.1.1.1',
    ]) {
      expect(countryOfAddress(ip), ip).toBeUndefined();
    }
  });

  it('answers the same from its cache', () => {
    expect(countryOfAddress('8.8.8.8')).toBe('us');
    expect(countryOfAddress('8.8.8.8')).toBe('us');
    expect(countryOfAddress('10.1.2.3')).toBeUndefined();
  });
});
