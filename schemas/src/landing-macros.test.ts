import { describe, expect, it } from 'vitest';
import { creativeFieldsSchema } from './api.ts';
import {
  LANDING_MACROS,
  SAMPLE_LANDING_VALUES,
  fillLandingUrl,
  landingMacroProblem,
  microCentsToUsdText,
} from './landing-macros.ts';
import { isSafeHttpUrl } from './url.ts';

const landingError = (landing_url: string) =>
  creativeFieldsSchema.safeParse({ landing_url }).error?.issues.find((i) => i.path[0] === 'landing_url')?.message;

describe('landing-URL macros', () => {
  it('accepts every macro after the host, and names each unknown one', () => {
    const all = `https://t.example/c/{click_id}?${LANDING_MACROS.map((m) => `${m}={${m}}`).join('&')}#{geo}`;
    expect(landingError(all)).toBeUndefined();
    expect(creativeFieldsSchema.parse({ landing_url: all }).landing_url).toBe(all);
    const message = landingError('https://t.example/?a={zone}&b={click_id}&c={Geo}&d={}&e={zone}');
    expect(message).toMatch(/^unknown macro \{zone\}, \{Geo\}, \{\}; use \{click_id\}, \{zone_id\}/);
  });

  it('refuses a macro in the host, the user info or the port, where a value could move the visitor elsewhere', () => {
    for (const bad of ['https://{geo}.t.example/', 'https://{click_id}@t.example/', 'https://t.example{zone_id}/'])
      expect(landingMacroProblem(bad), bad).toBe('macros may only be in the path, query or fragment, not in the host');
    expect(landingError('https://{geo}.t.example/x')).toBe(
      'macros may only be in the path, query or fragment, not in the host',
    );
    expect(landingMacroProblem('https://t.example/{geo}/')).toBeUndefined();
  });

  it('fills each value URL-encoded, so no value can change where the URL leads', () => {
    const hostile = { ...SAMPLE_LANDING_VALUES, os: 'a&b=c/../#x', browser: 'ü "<>\r\n', zone_id: '' };
    const filled = fillLandingUrl('https://t.example/p/{os}?b={browser}&z={zone_id}&c={click_id}&k={kept}', hostile);
    expect(filled).toBe(
      `https://t.example/p/a%26b%3Dc%2F..%2F%23x?b=%C3%BC%20%22%3C%3E%0D%0A&z=&c=${SAMPLE_LANDING_VALUES.click_id}&k={kept}`,
    );
    expect(isSafeHttpUrl(filled)).toBe(true);
    const url = new URL(filled);
    expect([url.host, url.searchParams.get('b'), url.hash]).toEqual(['t.example', 'ü "<>\r\n', '']);
  });

  it('writes money as exact USD decimals', () => {
    expect([0, 1, 42, 100_000, 125_000, 120_001, 99_999_999].map(microCentsToUsdText)).toEqual([
      '0',
      '0.00001',
      '0.00042',
      '1',
      '1.25',
      '1.20001',
      '999.99999',
    ]);
  });
});
