import { describe, expect, it } from 'vitest';
import { requestUrl } from './request-url.ts';

describe('requestUrl', () => {
  it('reads origin-form targets as paths, a leading // included', () => {
    expect(requestUrl('/api/adv/stats?from=2026-01-01')?.pathname).toBe('/api/adv/stats');
    expect(requestUrl('/api/adv/stats?from=2026-01-01')?.searchParams.get('from')).toBe('2026-01-01');
    // Found by the hostile-input suite: `new URL('//a:99999/', base)` reads a host with a bad port and throws (a 500).
    expect(requestUrl('//a:99999/')?.pathname).toBe('//a:99999/');
    expect(requestUrl('//[/')?.pathname).toBe('//[/');
    expect(requestUrl('/%ff%c0%af')?.pathname).toBe('/%ff%c0%af');
  });

  it('reads absolute-form targets and refuses the rest', () => {
    expect(requestUrl('http://x/healthz')?.pathname).toBe('/healthz');
    expect(requestUrl('http://[::1/api')).toBeUndefined();
    expect(requestUrl('*')).toBeUndefined();
    expect(requestUrl('')).toBeUndefined();
    expect(requestUrl('javascript:alert(1)')).toBeUndefined();
  });
});
