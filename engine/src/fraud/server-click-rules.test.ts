import { describe, expect, it } from 'vitest';
import { serverClickVerdict } from './server-click-rules.ts';
import type { ServerClickSignals } from './server-click-rules.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';
const genuine: ServerClickSignals = { userAgent: UA, ageMs: 10_000, sinceImpressionMs: 5_000, sameViewer: true };

describe('server-side click rules (VAST, OpenRTB, push)', () => {
  it('a click after its impression, from the viewer it was served to, is valid', () => {
    expect(serverClickVerdict(genuine)).toBeUndefined();
  });
  it.each([
    ['bot_user_agent', { userAgent: 'curl/8.0' }],
    ['bot_user_agent', { userAgent: '' }],
    ['no_impression', { sinceImpressionMs: undefined }],
    ['too_fast', { sinceImpressionMs: 400 }],
    ['other_viewer', { sameViewer: false }],
    ['expired', { ageMs: 2 * 86_400_000 }],
  ] as const)('%s', (rule, over) => {
    expect(serverClickVerdict({ ...genuine, ...over })).toBe(rule);
  });
});
