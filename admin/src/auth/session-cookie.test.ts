import { describe, expect, it } from 'vitest';
import { cookieRefusal, readSessionCookie, sessionCookie } from './session-cookie.ts';

describe('readSessionCookie', () => {
  it('finds the session among other cookies, and nothing in look-alikes', () => {
    expect(readSessionCookie('a=1; adnet_session=12|abc; b=2')).toBe('12|abc');
    expect(readSessionCookie('adnet_session=first; adnet_session=second')).toBe('first');
    expect(readSessionCookie('xadnet_session=1; adnet_sessionx=2')).toBeUndefined();
    expect(readSessionCookie('adnet_session=')).toBeUndefined();
    expect(readSessionCookie('adnet_session')).toBeUndefined();
    expect(readSessionCookie(undefined)).toBeUndefined();
  });
});

describe('sessionCookie', () => {
  it('is Secure only when asked, and never has a negative or fractional Max-Age', () => {
    expect(sessionCookie('t', 10.7, true)).toBe(
      'adnet_session=t; Path=/trpc; Max-Age=10; HttpOnly; SameSite=Strict; Secure',
    );
    expect(sessionCookie('t', -5, false)).toBe('adnet_session=t; Path=/trpc; Max-Age=0; HttpOnly; SameSite=Strict');
  });
});

describe('cookieRefusal', () => {
  const own = 'https://ads.example.com';
  it('asks the cabinet header of every request and our origin of state changes', () => {
    expect(cookieRefusal({ fetchSite: 'same-origin', origin: undefined, cabinet: '1' }, true, own)).toBeUndefined();
    expect(cookieRefusal({ fetchSite: undefined, origin: own, cabinet: '1' }, true, own)).toBeUndefined();
    expect(cookieRefusal({ fetchSite: undefined, origin: undefined, cabinet: '1' }, false, own)).toBeUndefined();
    expect(cookieRefusal({ fetchSite: 'same-origin', origin: own, cabinet: undefined }, false, own)).toMatch(
      /x-adnet-cabinet/,
    );
    expect(cookieRefusal({ fetchSite: 'same-origin', origin: own, cabinet: 'true' }, true, own)).toMatch(
      /x-adnet-cabinet/,
    );
    expect(cookieRefusal({ fetchSite: 'same-site', origin: own, cabinet: '1' }, true, own)).toMatch(/Cross-origin/);
    expect(
      cookieRefusal({ fetchSite: undefined, origin: 'https://ads.example.com.evil.net', cabinet: '1' }, true, own),
    ).toMatch(/Cross-origin/);
    expect(cookieRefusal({ fetchSite: undefined, origin: undefined, cabinet: '1' }, true, own)).toMatch(/Cross-origin/);
    // A browser's Sec-Fetch-Site outranks an Origin it also sent.
    expect(cookieRefusal({ fetchSite: 'cross-site', origin: own, cabinet: '1' }, true, own)).toMatch(/Cross-origin/);
  });
});
