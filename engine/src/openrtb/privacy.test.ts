import type { BidRequest } from '@adnet/schemas/openrtb';
import { describe, expect, it } from 'vitest';
import { normaliseBidRequest } from './normalise.ts';
import { privacyBar, tcfAllowsCaps, usPrivacyOptOut } from './privacy.ts';
import { tcString as tc } from '../../test/fixtures/tcf-fixture.ts';

// As the bid route does: normalised first, so the 2.5 ext places count as the 2.6 ones.
const request = (over: Partial<BidRequest>): BidRequest =>
  normaliseBidRequest({ id: 'r', imp: [{ id: '1' }], ...over });

describe('TCF v2 consent', () => {
  it('needs consent to purpose 1 and consent or legitimate interest for purpose 2', () => {
    expect(tcfAllowsCaps(tc([1, 2]))).toBe(true);
    expect(tcfAllowsCaps(tc([1], [2]))).toBe(true);
    expect(tcfAllowsCaps(tc([1]))).toBe(false);
    expect(tcfAllowsCaps(tc([2, 3, 4]))).toBe(false);
  });

  it('takes anything that does not decode as no consent, never as an error', () => {
    for (const bad of [
      '',
      'x',
      '!!!',
      'COvFyGBOvFyGBAbAAAENAPCAAOAAAAAAAAAAAEEUACCKAAA'.slice(0, 10),
      'A'.repeat(5_000),
      '\u0000\u2028',
    ]) {
      expect(tcfAllowsCaps(bad)).toBe(false);
    }
  });
});

describe('US Privacy (CCPA) string', () => {
  it('opts out only on version 1 with Y as the third character', () => {
    expect(usPrivacyOptOut('1YYN')).toBe(true);
    expect(usPrivacyOptOut('1NYY')).toBe(true);
    expect(usPrivacyOptOut('1YNN')).toBe(false);
    expect(usPrivacyOptOut('1---')).toBe(false);
    for (const notOne of ['', '2YYN', '1YY', '1YYNN', undefined]) expect(usPrivacyOptOut(notOne)).toBe(false);
  });
});

describe('privacy bar of a request', () => {
  it('names the first signal that bars user-level processing', () => {
    expect(privacyBar(request({}))).toBeUndefined();
    expect(privacyBar(request({ regs: { coppa: 1, ext: { gdpr: 1 } } }))).toBe('coppa');
    expect(privacyBar(request({ regs: { ext: { gdpr: 1 } } }))).toBe('gdpr');
    expect(privacyBar(request({ regs: { ext: { gdpr: 1 } }, user: { ext: { consent: tc([1, 2]) } } }))).toBeUndefined();
    expect(
      privacyBar(request({ regs: { ext: { gdpr: 1, us_privacy: '1YYN' } }, user: { ext: { consent: tc([1, 2]) } } })),
    ).toBe('us_privacy');
    expect(privacyBar(request({ regs: { coppa: 0, ext: { gdpr: 0, us_privacy: '1YNN' } } }))).toBeUndefined();
  });

  it('refuses a consent string too long to be one without decoding it', () => {
    expect(
      privacyBar(request({ regs: { ext: { gdpr: 1 } }, user: { ext: { consent: tc([1, 2]) + '.'.repeat(10_000) } } })),
    ).toBe('gdpr');
  });
});
