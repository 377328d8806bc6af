import { describe, expect, it } from 'vitest';
import { normalizeDomain } from './domain-name.ts';

describe('normalizeDomain', () => {
  it.each([
    ['example.com', 'example.com'],
    ['  Example.COM ', 'example.com'],
    ['https://www.Example.com/some/path?q=1', 'www.example.com'],
    ['http://example.com:8080', 'example.com'],
    ['example.com.', 'example.com'],
    ['münchen.de', 'xn--mnchen-3ya.de'],
    ['https://пример.рф/', 'xn--e1afmkfd.xn--p1ai'],
  ])('%s -> %s', (input, expected) => expect(normalizeDomain(input)).toBe(expected));

  it.each([
    '',
    'localhost',
    '127.0.0.1',
    '[::1]',
    'exa mple.com',
    'ftp://example.com',
    '-bad.com',
    'bad-.com',
    'a..com',
    'example.c0m',
    'user:pw@example.com',
    'x'.repeat(70) + '.com',
  ])('refuses %j', (input) => expect(normalizeDomain(input)).toBeUndefined());
});
