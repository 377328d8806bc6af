import { describe, expect, it } from 'vitest';
import { creativeFieldsSchema, postbackUrlSchema } from './api.ts';
import { pushSubscribeSchema } from './publisher.ts';
import { checkHttpUrl, isSafeHttpUrl } from './url.ts';

const refused = (raw: string, rules = {}) => {
  const r = checkHttpUrl(raw, rules);
  return r.ok ? undefined : r.message;
};

describe('checkHttpUrl', () => {
  it('refuses control characters and line separators anywhere, the ends included', () => {
    for (const c of ['\r', '\n', '\r\n', '\0', '\t', '\x7f', '\x85', '\u2028', '\u2029', '\x1b'])
      for (const raw of [`https://a.example/${c}x`, `https://a.example/x${c}`, `${c}https://a.example/`]) {
        expect(refused(raw), JSON.stringify(raw)).toBe('must not contain control characters or line breaks');
      }
  });

  it('refuses "]]>" and every scheme but http(s)', () => {
    expect(refused('https://a.example/]]><script>alert(1)</script>')).toBe('must not contain "]]>"');
    for (const raw of [
      'javascript:alert(1)',
      'JaVaScRiPt:alert(1)',
      'data:text/html,<script>',
      'vbscript:x',
      'file:///etc/passwd',
      'ftp://a.example/',
      '//a.example/x',
      '/relative',
    ])
      expect(refused(raw), raw).toBe('must be an absolute http(s) URL');
    expect(refused('http://a.example/', { httpsOnly: true })).toBe('must be an https URL');
  });

  it('normalises what it accepts: quotes, brackets and spaces encoded, IDN to punycode, a path slash added', () => {
    expect(checkHttpUrl('https://a.example/"><img src=x onerror=alert(1)>')).toEqual({
      ok: true,
      href: 'https://a.example/%22%3E%3Cimg%20src=x%20onerror=alert(1)%3E',
    });
    expect(checkHttpUrl('  HTTPS://München.DE ')).toEqual({ ok: true, href: 'https://xn--mnchen-3ya.de/' });
    expect(checkHttpUrl('https://a.example/?q=<b>')).toEqual({ ok: true, href: 'https://a.example/?q=%3Cb%3E' });
  });

  it('keeps macros as typed when asked, in the path as in the query', () => {
    expect(checkHttpUrl('https://a.example/{click_id}/x?c={click_id}&g={geo}', { macros: true })).toEqual({
      ok: true,
      href: 'https://a.example/{click_id}/x?c={click_id}&g={geo}',
    });
    expect(checkHttpUrl('https://a.example/{click_id}')).toEqual({
      ok: true,
      href: 'https://a.example/%7Bclick_id%7D',
    });
  });

  it('isSafeHttpUrl passes normalised URLs and nothing a writer could be hurt by', () => {
    expect(isSafeHttpUrl('https://a.example/p?c={click_id}')).toBe(true);
    for (const bad of [
      'javascript:alert(1)',
      'https://a.example/\r\nx',
      'https://a.example/ x',
      'https://a.example/]]>',
      'https://a.example/\u2028',
      'https://ä.example/',
      '',
    ])
      expect(isSafeHttpUrl(bad), JSON.stringify(bad)).toBe(false);
  });
});

describe('every URL field uses it', () => {
  it('creative fields name each bad field', () => {
    const r = creativeFieldsSchema.safeParse({
      landing_url: 'https://a.example/\r\nSet-Cookie: x=1',
      video_url: 'javascript:alert(1)',
    });
    expect(r.success).toBe(false);
    expect(Object.fromEntries(r.error?.issues.map((i) => [i.path.join('.'), i.message]) ?? [])).toEqual({
      landing_url: 'must not contain control characters or line breaks',
      video_url: 'must be an absolute http(s) URL',
    });
  });

  it('postback patterns and push endpoints too', () => {
    expect(postbackUrlSchema.safeParse('https://t.example/]]>?c={click_id}').error?.issues[0]?.message).toBe(
      'must not contain "]]>"',
    );
    expect(postbackUrlSchema.parse('https://t.example/pb?c={click_id}&p={payout_cents}')).toBe(
      'https://t.example/pb?c={click_id}&p={payout_cents}',
    );
    const push = pushSubscribeSchema.safeParse({
      zone: 'z1',
      subscription: { endpoint: 'https://fcm.googleapis.com/\nx', keys: {} },
    });
    expect(push.error?.issues.find((i) => i.path.join('.') === 'subscription.endpoint')?.message).toBe(
      'must not contain control characters or line breaks',
    );
  });
});
