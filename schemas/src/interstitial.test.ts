import { describe, expect, it } from 'vitest';
import { campaignCreateInputSchema, interstitialOptInProblem } from './api.ts';
import { INTERSTITIAL_DEFAULTS, interstitialSettingsOf, zoneCreateInputSchema } from './publisher.ts';

// The interstitial format's fields: a zone's delay, close delay and cap, a campaign's opt-in.
const zone = (fields: Record<string, unknown>) =>
  zoneCreateInputSchema.safeParse({ site_id: 1, name: 'z', format: 'interstitial', ...fields });
const problems = (r: ReturnType<typeof zone>) =>
  Object.fromEntries((r.error?.issues ?? []).map((i) => [i.path.join('.'), i.message]));

describe('interstitial zones', () => {
  it('take each setting in its range and name each one out of it', () => {
    expect(zone({}).success).toBe(true);
    expect(
      zone({ interstitial_delay_sec: 60, interstitial_close_after_sec: 10, interstitial_freq_cap_hours: 168 }).success,
    ).toBe(true);
    expect(
      zone({ interstitial_delay_sec: 0, interstitial_close_after_sec: 0, interstitial_freq_cap_hours: 1 }).success,
    ).toBe(true);
    expect(
      problems(
        zone({ interstitial_delay_sec: -1, interstitial_close_after_sec: 11, interstitial_freq_cap_hours: 169 }),
      ),
    ).toEqual({
      interstitial_delay_sec: 'must be at least 0',
      interstitial_close_after_sec: 'must be at most 10',
      interstitial_freq_cap_hours: 'must be at most 168',
    });
    expect(problems(zone({ interstitial_delay_sec: '5', interstitial_freq_cap_hours: 0 }))).toEqual({
      interstitial_delay_sec: 'must be a number',
      interstitial_freq_cap_hours: 'must be at least 1',
    });
  });

  it('are the only zones that take them', () => {
    expect(
      problems(zone({ format: 'banner', banner_width: 300, banner_height: 250, interstitial_close_after_sec: 2 })),
    ).toEqual({
      interstitial_close_after_sec: 'is only for interstitial zones',
    });
  });

  it('read the defaults where a setting is left out, and null on other formats', () => {
    expect(interstitialSettingsOf('interstitial', {})).toEqual(INTERSTITIAL_DEFAULTS);
    expect(INTERSTITIAL_DEFAULTS).toEqual({
      interstitial_delay_sec: 0,
      interstitial_close_after_sec: 3,
      interstitial_freq_cap_hours: 24,
    });
    expect(interstitialSettingsOf('interstitial', { interstitial_close_after_sec: 0 })).toMatchObject({
      interstitial_close_after_sec: 0,
    });
    expect(interstitialSettingsOf('native', { interstitial_delay_sec: 5 })).toEqual({
      interstitial_delay_sec: null,
      interstitial_close_after_sec: null,
      interstitial_freq_cap_hours: null,
    });
  });
});

describe("a campaign's interstitial opt-in", () => {
  const campaign = (fields: Record<string, unknown>) =>
    campaignCreateInputSchema.safeParse({
      name: 'c',
      vertical: 'ecommerce',
      bid_type: 'cpm',
      bid_usd: 1,
      daily_budget_usd: 10,
      ...fields,
    });
  it('is for banner and native campaigns alone, named on `interstitial`', () => {
    for (const format of ['banner', 'native'])
      expect(campaign({ format, interstitial: true }).success, format).toBe(true);
    for (const format of ['video', 'push', 'popunder', 'direct_link', 'interstitial']) {
      const r = campaign({ format, interstitial: true });
      expect(
        r.error?.issues.map((i) => i.path.join('.')),
        format,
      ).toEqual(['interstitial']);
    }
    // Saying no is always allowed.
    expect(campaign({ format: 'video', interstitial: false }).success).toBe(true);
    expect(interstitialOptInProblem('video', undefined)).toBeUndefined();
  });
});
