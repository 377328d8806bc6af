import { describe, expect, it } from 'vitest';
import { ZoneRequestRate } from './zone-request-rate.ts';

const limits = { perAddressPerMinute: 5, perFingerprintPerMinute: 3, maxKeys: 100 };
const T = 1_800_000_000_000; // a minute boundary

describe('ZoneRequestRate', () => {
  it('lets a fingerprint make its allowance in a minute, then calls the rest a flood', () => {
    const rate = new ZoneRequestRate(limits);
    const verdicts = Array.from({ length: 5 }, (_, i) => rate.record(1, '192.0.2.1', 'fp1', T + i));
    expect(verdicts).toEqual([undefined, undefined, undefined, 'fingerprint_flood', 'fingerprint_flood']);
  });

  it('limits an address however it varies its fingerprint', () => {
    const rate = new ZoneRequestRate(limits);
    const verdicts = Array.from({ length: 7 }, (_, i) => rate.record(1, '192.0.2.1', `fp${i}`, T + i));
    expect(verdicts).toEqual([undefined, undefined, undefined, undefined, undefined, 'address_flood', 'address_flood']);
    // Without any fingerprint only the address counts.
    const bare = new ZoneRequestRate(limits);
    expect(Array.from({ length: 6 }, () => bare.record(1, '192.0.2.9', '', T)).at(-1)).toBe('address_flood');
  });

  it('counts each zone apart and starts afresh each minute', () => {
    const rate = new ZoneRequestRate(limits);
    for (let i = 0; i < 3; i++) rate.record(1, '192.0.2.1', 'fp', T);
    expect(rate.record(1, '192.0.2.1', 'fp', T)).toBe('fingerprint_flood');
    expect(rate.record(2, '192.0.2.1', 'fp', T)).toBeUndefined();
    expect(rate.record(1, '192.0.2.1', 'fp', T + 60_000)).toBeUndefined();
  });

  it('stays within its key budget under a flood of new addresses', () => {
    const rate = new ZoneRequestRate({ ...limits, maxKeys: 10 });
    for (let i = 0; i < 1_000; i++) rate.record(1, `10.0.${i >> 8}.${i & 255}`, '', T);
    expect(rate.size).toBe(10);
    // Addresses already counted keep being limited.
    for (let i = 0; i < 5; i++) rate.record(1, '10.0.0.0', '', T);
    expect(rate.record(1, '10.0.0.0', '', T)).toBe('address_flood');
  });
});
