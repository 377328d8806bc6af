import { describe, expect, it } from 'vitest';
import { pageHostOf, pageOnSite } from './page-origin.ts';

describe('pageHostOf', () => {
  it('reads Origin first, then Referer', () => {
    expect(pageHostOf('https://News.Example.com', 'https://other.test/page')).toBe('news.example.com');
    expect(pageHostOf(undefined, 'https://news.example.com:8443/a?b=c')).toBe('news.example.com');
  });

  it('knows nothing from absent, null or malformed headers', () => {
    expect(pageHostOf(undefined, undefined)).toBeUndefined();
    expect(pageHostOf('null', '')).toBeUndefined();
    expect(pageHostOf('not a url', undefined)).toBeUndefined();
    expect(pageHostOf('null', 'https://news.example.com/')).toBe('news.example.com');
    expect(pageHostOf('https://user@evil.test@news.example.com', undefined)).toBeUndefined();
    expect(pageHostOf('ftp://news.example.com', undefined)).toBeUndefined();
    expect(pageHostOf('https://news.example.com:8443', undefined)).toBe('news.example.com');
  });
});

describe('pageOnSite', () => {
  it('accepts the domain and its subdomains, with or without www.', () => {
    expect(pageOnSite('example.com', 'example.com')).toBe(true);
    expect(pageOnSite('www.example.com', 'example.com')).toBe(true);
    expect(pageOnSite('example.com', 'www.example.com')).toBe(true);
    expect(pageOnSite('m.news.example.com', 'example.com')).toBe(true);
  });

  it('refuses lookalikes', () => {
    expect(pageOnSite('badexample.com', 'example.com')).toBe(false);
    expect(pageOnSite('example.com.evil.test', 'example.com')).toBe(false);
    expect(pageOnSite('evil.test', 'example.com')).toBe(false);
  });
});
