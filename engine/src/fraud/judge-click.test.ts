import { describe, expect, it } from 'vitest';
import { ipPrefixOf, uaHashOf } from '../tracking/viewer.ts';
import { judgeClick } from './judge-click.ts';
import type { ClickFacts } from './judge-click.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';
const IP = '203.0.113.7';
const now = 1_800_000_000_000;
const clickOf = (ticket: Partial<ClickFacts['ticket']>, more: Partial<ClickFacts> = {}): ClickFacts => ({
  ticket: {
    surface: 'widget',
    issuedAt: now / 1000 - 10,
    test: false,
    ipPrefix: ipPrefixOf(IP),
    uaHash: uaHashOf(UA),
    ...ticket,
  },
  // A bare link: no measurements of the widget's.
  query: '',
  userAgent: UA,
  ip: IP,
  now,
  impressionAt: now - 5_000,
  ...more,
});

describe('judgeClick', () => {
  it("wants the widget's measurements on a widget ad, whoever served it in our markup (a Prebid banner has our script)", () => {
    expect(judgeClick(clickOf({})).reason).toBeDefined();
    expect(judgeClick(clickOf({ integration: 'prebid', format: 'banner' })).reason).toBeDefined();
  });
  it("judges a Prebid native ad, drawn by the publisher's template, on server-side facts as a player's click", () => {
    const prebidNative = { integration: 'prebid' as const, format: 'native' as const };
    expect(judgeClick(clickOf(prebidNative)).reason).toBeUndefined();
    // Still only after its counted impression, a moment after it, from the viewer it was answered to.
    expect(judgeClick(clickOf(prebidNative, { impressionAt: undefined })).reason).toBe('no_impression');
    expect(judgeClick(clickOf(prebidNative, { impressionAt: now - 100 })).reason).toBe('too_fast');
    expect(judgeClick(clickOf(prebidNative, { ip: '198.51.100.9' })).reason).toBe('other_viewer');
    expect(judgeClick(clickOf(prebidNative, { userAgent: 'curl/8.0' })).reason).toBe('bot_user_agent');
    // The widget's own native ads keep the widget's rules.
    expect(judgeClick(clickOf({ integration: 'widget', format: 'native' })).reason).toBeDefined();
  });
});
