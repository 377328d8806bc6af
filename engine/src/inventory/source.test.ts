import { describe, expect, it } from 'vitest';
import { MAX_SOURCE_LENGTH, SOURCE_OTHER, SourceNames, bundleSource, domainSource, exchangeSource } from './source.ts';

describe('domainSource', () => {
  it('names a site by its registrable domain, private suffixes included', () => {
    expect(domainSource('news.example.co.uk')).toBe('example.co.uk');
    expect(domainSource('WWW.Example.COM.')).toBe('example.com');
    expect(domainSource('https://m.example.org/path?q=1')).toBe('example.org');
    expect(domainSource('my-blog.blogspot.com')).toBe('my-blog.blogspot.com');
    expect(domainSource('xn--80ak6aa92e.com')).toBe('xn--80ak6aa92e.com');
  });

  it('keeps addresses and single-label hosts, and says nothing for nothing', () => {
    expect(domainSource('127.0.0.1')).toBe('127.0.0.1');
    expect(domainSource('localhost')).toBe('localhost');
    expect(domainSource(undefined)).toBe('');
    expect(domainSource('  ')).toBe('');
  });

  it('maps junk and over-long names to other', () => {
    for (const junk of [
      'a b.com',
      'foo..bar',
      '-bad-.com',
      '<script>',
      `${'a'.repeat(MAX_SOURCE_LENGTH)}.com`,
      'x'.repeat(300),
      '=cmd|calc',
    ]) {
      expect(domainSource(junk), junk).toBe(SOURCE_OTHER);
    }
  });
});

describe('bundleSource and exchangeSource', () => {
  it('takes store ids as they are, lower-cased', () => {
    expect(bundleSource('com.Example.Game')).toBe('com.example.game');
    expect(bundleSource('id1234567890')).toBe('id1234567890');
    expect(bundleSource('1234567890')).toBe('1234567890');
    expect(bundleSource('com.example/../x')).toBe(SOURCE_OTHER);
    expect(bundleSource('a'.repeat(MAX_SOURCE_LENGTH + 1))).toBe(SOURCE_OTHER);
    expect(bundleSource('')).toBe('');
  });

  it('prefers the app bundle, then the app domain, and reads the site otherwise', () => {
    expect(exchangeSource({ app: { bundle: 'com.example.app', domain: 'example.com' } })).toBe('com.example.app');
    expect(exchangeSource({ app: { domain: 'play.example.com' } })).toBe('example.com');
    expect(exchangeSource({ site: { domain: 'a.news.example.org' } })).toBe('example.org');
    expect(exchangeSource({})).toBe('');
  });
});

describe('SourceNames', () => {
  it('admits at most maxPerHour names an hour; the rest are other until the hour turns', () => {
    const names = new SourceNames(3);
    const t = Date.UTC(2026, 10, 23, 10, 5);
    const of = (d: string, ts = t) => names.of({ site: { domain: d } }, ts);
    expect(['a.com', 'b.com', 'c.com', 'd.com'].map((d) => of(d))).toEqual(['a.com', 'b.com', 'c.com', SOURCE_OTHER]);
    // Admitted names stay themselves, whatever subdomain says them.
    expect(of('www.a.com')).toBe('a.com');
    expect(of('d.com', t + 3_600_000)).toBe('d.com');
  });

  it('keeps an app with a | in its bundle apart from another', () => {
    const names = new SourceNames();
    expect(names.of({ app: { bundle: 'x|y', domain: '' } }, 0)).toBe(SOURCE_OTHER);
    expect(names.of({ app: { bundle: 'x', domain: 'y|' } }, 0)).toBe('x');
  });
});
