import { describe, expect, it } from 'vitest';
import { consentQuery } from './consent.ts';

/** A page whose CMP answers getTCData as given (after `delayMs`), or throws, or never answers. */
function page(cmp?: { data: unknown; ok: boolean; delayMs?: number } | 'throws' | 'silent'): Window {
  if (cmp === undefined) return {} as Window;
  const calls: unknown[][] = [];
  const __tcfapi = (command: string, version: number, cb: (d: unknown, ok: boolean) => void) => {
    calls.push([command, version]);
    if (cmp === 'throws') throw new Error('CMP broken');
    if (cmp === 'silent') return;
    setTimeout(() => cb(cmp.data, cmp.ok), cmp.delayMs ?? 0);
  };
  return { __tcfapi, calls } as unknown as Window;
}

describe("the page's consent signal for /imp", () => {
  it('is empty without a CMP, and when the CMP says GDPR does not apply', async () => {
    expect(await consentQuery(page())).toBe('');
    expect(await consentQuery(page({ data: { gdprApplies: false, tcString: 'CPx' }, ok: true }))).toBe('');
  });

  it("passes the CMP's TC string, escaped, where GDPR applies", async () => {
    const w = page({ data: { gdprApplies: true, tcString: 'CPabc.def_-+/=' }, ok: true, delayMs: 5 });
    expect(await consentQuery(w)).toBe('&gdpr=1&gdpr_consent=CPabc.def_-%2B%2F%3D');
    expect((w as unknown as { calls: unknown[] }).calls).toEqual([['getTCData', 2]]);
  });

  it('assumes no consent where the CMP fails, throws, gives no string, or does not answer in time', async () => {
    expect(await consentQuery(page({ data: null, ok: false }))).toBe('&gdpr=1');
    expect(await consentQuery(page('throws'))).toBe('&gdpr=1');
    expect(await consentQuery(page({ data: { gdprApplies: true }, ok: true }))).toBe('&gdpr=1');
    expect(await consentQuery(page('silent'), 20)).toBe('&gdpr=1');
    expect(await consentQuery(page({ data: { gdprApplies: false }, ok: true, delayMs: 60 }), 20)).toBe('&gdpr=1');
  });
});
