import { describe, expect, it } from 'vitest';
import { ipPrefixOf, uaHashOf } from './viewer.ts';

describe('viewer facts', () => {
  it('cuts addresses to their network', () => {
    expect(ipPrefixOf('203.0.113.77')).toBe('203.0.113.0');
    expect(ipPrefixOf('::ffff:198.51.100.9')).toBe('198.51.100.0');
    expect(ipPrefixOf('2001:db8:abcd:12::1')).toBe('2001:db8:abcd::');
    expect(ipPrefixOf('2001:0db8:00ab::')).toBe('2001:db8:ab::');
    expect(ipPrefixOf('::1')).toBe('0:0:0::');
    expect(ipPrefixOf('fe80:1:2:3:4:5:6:7')).toBe('fe80:1:2::');
    for (const bad of ['', 'localhost', '999.1.1.1', '1.2.3']) expect(ipPrefixOf(bad)).toBe('');
  });

  it('hashes user agents stably and tells them apart', () => {
    expect(uaHashOf('Mozilla/5.0 A')).toMatch(/^[0-9a-f]{8}$/);
    expect(uaHashOf('Mozilla/5.0 A')).toBe(uaHashOf('Mozilla/5.0 A'));
    expect(uaHashOf('Mozilla/5.0 A')).not.toBe(uaHashOf('Mozilla/5.0 B'));
    expect(uaHashOf('')).toBe('');
  });
});
