import { describe, expect, it } from 'vitest';
import {
  attemptDueAt,
  fillPostbackUrl,
  postbackSignature,
  postbackTarget,
  signatureMatches,
  statusMove,
} from './postback-rules.ts';

const f = { click_id: '3f9d2c1a-0000-4000-8000-000000000001', payout: '1500', status: 'approved', txid: 'T-1' };

describe('postback rules', () => {
  it('accepts the signature in hex (any case) and base64, nothing else', () => {
    const sig = postbackSignature('secret', f);
    expect(signatureMatches(sig.toString('hex'), sig)).toBe(true);
    expect(signatureMatches(sig.toString('hex').toUpperCase(), sig)).toBe(true);
    expect(signatureMatches(sig.toString('base64'), sig)).toBe(true);
    expect(signatureMatches(sig.toString('base64url'), sig)).toBe(true);
    expect(signatureMatches(postbackSignature('other', f).toString('hex'), sig)).toBe(false);
    expect(signatureMatches(postbackSignature('secret', { ...f, payout: '1501' }).toString('hex'), sig)).toBe(false);
    for (const junk of ['', 'abc', 'z'.repeat(64)]) expect(signatureMatches(junk, sig)).toBe(false);
  });
  it('allows pending -> approved | rejected only', () => {
    expect(statusMove('pending', 'approved')).toBe('move');
    expect(statusMove('pending', 'rejected')).toBe('move');
    expect(statusMove('approved', 'approved')).toBe('duplicate');
    expect(statusMove('approved', 'rejected')).toBe('refused');
    expect(statusMove('rejected', 'pending')).toBe('refused');
  });
  it('fills macros URL-encoded and leaves unknown text alone', () => {
    expect(
      fillPostbackUrl('https://t.example.com/pb?c={click_id}&p={payout_cents}&g={geo}&o={os}', {
        click_id: 'a b',
        payout_cents: 15,
        geo: 'us',
        os: 'Mac OS/X',
      }),
    ).toBe('https://t.example.com/pb?c=a%20b&p=15&g=us&o=Mac%20OS%2FX');
  });
  it('tells a pattern that is no URL from values that make a good pattern an invalid URL', () => {
    const values = { click_id: 'c-1', geo: 'fr', payout_cents: 99_999 };
    expect(postbackTarget('https://t.example.com/pb?c={click_id}&g={geo}', values)).toEqual({
      ok: true,
      url: 'https://t.example.com/pb?c=c-1&g=fr',
    });
    // A macro for the host is allowed: its value decides.
    expect(postbackTarget('https://{geo}/', values)).toEqual({ ok: true, url: 'https://fr/' });
    expect(postbackTarget('https://{geo}/', { geo: '' })).toMatchObject({ ok: false, reason: 'invalid_url' });
    expect(postbackTarget('http://t.example.com:{payout_cents}/', values)).toMatchObject({
      ok: false,
      reason: 'invalid_url',
    });
    expect(postbackTarget('http://t.example.com/?c={click_id}', { click_id: '\ud800' })).toMatchObject({
      ok: false,
      reason: 'invalid_url',
    });
    for (const bad of [
      'not a url {click_id}',
      'ftp://t.example.com/{click_id}',
      'javascript:alert(1)//{click_id}',
      'http://[::1/{click_id}',
    ])
      expect(postbackTarget(bad, values)).toMatchObject({ ok: false, reason: 'bad_pattern' });
  });
  it('schedules attempts after 5 s, 30 s, 5 min, 30 min, 2 h, and no sixth', () => {
    expect([1, 2, 3, 4, 5].map((n) => attemptDueAt(0, n, () => 0))).toEqual([
      5_000, 30_000, 300_000, 1_800_000, 7_200_000,
    ]);
    expect(attemptDueAt(0, 5, () => 1)).toBe(7_920_000);
    expect(attemptDueAt(0, 6)).toBeUndefined();
  });
});
