import { describe, expect, it } from 'vitest';
import {
  depositInputSchema,
  depositInputSchemaFor,
  ibanChecksumOk,
  monthSchema,
  payoutSettingsInputSchema,
} from './billing.ts';

describe('billing shapes', () => {
  it('checks IBANs by their mod-97 digits', () => {
    for (const good of ['DE89370400440532013000', 'GB82WEST12345698765432', 'FR1420041010050500013M02606'])
      expect(ibanChecksumOk(good), good).toBe(true);
    for (const bad of ['DE89370400440532013001', 'GB82WEST12345698765433', 'DE00370400440532013000'])
      expect(ibanChecksumOk(bad), bad).toBe(false);
  });

  it('reads months from 1970 on', () => {
    for (const ok of ['1970-01', '2026-11', '9999-12']) expect(monthSchema.safeParse(ok).success, ok).toBe(true);
    for (const bad of ['2026-1', '2026-13', '2026-00', '0001-01', '1969-12', '2026-11-01', ' 2026-11', ''])
      expect(monthSchema.safeParse(bad).success, bad).toBe(false);
  });

  it('takes deposits in cents-exact dollars', () => {
    expect(depositInputSchema.safeParse({ amount_usd: 0.29 }).success).toBe(true);
    expect(depositInputSchema.safeParse({ amount_usd: 0.291 }).success).toBe(false);
    expect(depositInputSchema.safeParse({ amount_usd: Number.NaN }).success).toBe(false);
    expect(depositInputSchema.safeParse({ amount_usd: Infinity }).success).toBe(false);
  });

  it('checks the configured bounds in the same pass, in dollars with cents', () => {
    const configured = depositInputSchemaFor({ minCents: 500, maxCents: 500_000 });
    const message = (amount: number) => {
      const r = configured.safeParse({ amount_usd: amount });
      return r.success ? undefined : r.error.issues.map((i) => i.message);
    };
    expect(message(5)).toBeUndefined();
    expect(message(5000)).toBeUndefined();
    expect(message(4.99)).toEqual(['must be at least 5.00']);
    expect(message(5000.01)).toEqual(['must be at most 5000.00']);
    expect(message(0.291)).toContain('must have at most 2 decimal places');
    // The documented shape keeps only the absolute bounds.
    expect(depositInputSchema.safeParse({ amount_usd: 4.99 }).success).toBe(true);
  });

  it('keeps payout details to the fields of the method', () => {
    const crypto = {
      method: 'crypto',
      details: { currency: 'USDT', network: 'tron', address: 'TXYZ'.repeat(9) },
      threshold_usd: 10,
    };
    expect(payoutSettingsInputSchema.safeParse(crypto).success).toBe(true);
    expect(
      payoutSettingsInputSchema.safeParse({ ...crypto, details: { ...crypto.details, email: 'x@example.com' } })
        .success,
    ).toBe(false);
    expect(
      payoutSettingsInputSchema.safeParse({ ...crypto, details: { ...crypto.details, address: '0x<script>' } }).success,
    ).toBe(false);
    expect(payoutSettingsInputSchema.safeParse({ ...crypto, method: 'paypal' }).success).toBe(false);
  });
});
