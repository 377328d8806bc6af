import { describe, expect, it } from 'vitest';
import { landingPreview } from './landing-help.ts';

describe('the landing URL preview', () => {
  it('fills the macros with sample values, URL-encoded as the click redirect does', () => {
    expect(landingPreview(' https://t.example/{campaign_id}?c={click_id}&g={geo}&p={cost} ')).toEqual({
      ok: true,
      text: 'https://t.example/1001?c=6f1c2a9e-7b41-4d2e-9a55-0c3e8f1d2b7a&g=us&p=1.25',
    });
  });

  it('says what is wrong instead: an unknown macro, one in the host; nothing typed yet', () => {
    expect(landingPreview('https://t.example/?z={zone}')).toMatchObject({
      ok: false,
      text: expect.stringMatching(/^unknown macro \{zone\}; use /),
    });
    expect(landingPreview('https://{geo}.t.example/')).toMatchObject({ ok: false });
    expect(landingPreview('')).toMatchObject({ ok: true, text: 'Type a landing URL to see it with sample values.' });
  });
});
