import { describe, expect, it } from 'vitest';
import {
  HOSTILE_TEXT,
  HOSTILE_URLS,
  activeHtml,
  scriptElements,
  vastVerdict,
  xmlText,
} from '@adnet/test-support/hostile';
import { creativeFixture } from '../../test/fixtures/index-fixtures.ts';
import { bannerAdm, cdata, esc, nativeAdm } from './ad-markup.ts';
import { vastAdm } from './vast-document.ts';

const links = {
  clickUrl: 'https://ads.example.net/c/TICKET/tok',
  impressionUrl: 'https://ads.example.net/openrtb/imptracker/TICKET',
  trackingUrl: (e: string) => `https://ads.example.net/t/vast/${e}/TICKET`,
};

// Every hostile text in every text field, beside every hostile URL in every URL field: what a creative
// stored before the API's checks could hold.
const creatives = HOSTILE_TEXT.flatMap((text, i) => {
  const bad = HOSTILE_URLS[i % HOSTILE_URLS.length] as string;
  const base = { id: i + 1, title: text, body: text, cta_text: text };
  return [
    creativeFixture({ ...base, format: 'banner', image_url: bad, landing_url: bad }),
    creativeFixture({ ...base, format: 'native', image_url: bad }),
    creativeFixture({ ...base, format: 'video', image_url: null, video_url: bad, orientation: 'vertical' }),
  ];
});

describe('ad markup with hostile creatives', () => {
  it('VAST stays well-formed and valid against the IAB schema, with no element a creative smuggled in', () => {
    for (const c of creatives.filter((x) => x.format === 'video')) {
      const xml = vastAdm(c, links, 'bid-1');
      const verdict = vastVerdict(xml);
      expect(verdict.valid, verdict.output).toBe(true);
      expect(scriptElements(xml)).toBe(0);
      // A URL that is not plain http(s) is left out; the title comes back as the text it was, less what XML
      // cannot hold (and with line ends as an XML parser reads them).
      expect(xmlText(xml, 'MediaFile')).toBe('');
      expect(xmlText(xml, 'ClickThrough')).toBe(links.clickUrl);
      const title = (c.title ?? '')
        // eslint-disable-next-line no-control-regex -- the characters XML drops
        .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE]|\uD800/g, '')
        .replace(/\r\n?/g, '\n');
      expect(xmlText(xml, 'AdTitle')).toBe(title);
    }
  });

  it('banner HTML has nothing that runs and no link but http(s)', () => {
    for (const c of creatives.filter((x) => x.format === 'banner')) expect(activeHtml(bannerAdm(c, links))).toEqual([]);
  });

  it('native JSON parses back to the same text, with no raw "<", "&" or line separator to break a page it is pasted into', () => {
    for (const c of creatives.filter((x) => x.format === 'native')) {
      const adm = nativeAdm(c, links);
      expect(adm).not.toMatch(/[<>&\u2028\u2029]/);
      const parsed = JSON.parse(adm) as { native: { assets: { title?: { text: string }; img?: unknown }[] } };
      expect(parsed.native.assets[0]?.title?.text).toBe(c.title);
      expect(parsed.native.assets.some((a) => a.img)).toBe(false);
    }
  });

  it('a safe URL is written as it is', () => {
    const c = creativeFixture({ format: 'video', image_url: null, video_url: 'https://cdn.example.com/v.mp4?a=1&b=2' });
    expect(xmlText(vastAdm(c, links, 'b'), 'MediaFile')).toBe('https://cdn.example.com/v.mp4?a=1&b=2');
    expect(bannerAdm(creativeFixture(), links)).toContain('src="https://cdn.example.com/a.png"');
  });

  it('esc and cdata leave ordinary text untouched and split every "]]>"', () => {
    expect(esc('Great offer')).toBe('Great offer');
    expect(esc(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
    expect(cdata('a]]>b]]>c')).toBe('<![CDATA[a]]]]><![CDATA[>b]]]]><![CDATA[>c]]>');
    // Dropping a character XML cannot hold must not join a "]]>" back together.
    expect(cdata(']]\u0001>')).toBe('<![CDATA[]]]]><![CDATA[>]]>');
  });
});

describe('VAST duration', () => {
  it("carries the creative's own length, valid against the IAB VAST 4.0 schema", () => {
    for (const [duration_s, text] of [
      [7, '00:00:07'],
      [95, '00:01:35'],
      [600, '00:10:00'],
    ] as const) {
      const xml = vastAdm(
        creativeFixture({ format: 'video', image_url: null, video_url: 'https://cdn.example.com/v.mp4', duration_s }),
        links,
        'bid-1',
      );
      expect(xmlText(xml, 'Duration')).toBe(text);
      const verdict = vastVerdict(xml);
      expect(verdict.valid, verdict.output).toBe(true);
    }
  });

  it('says 30 seconds for a creative without a length, or with one the API would not have stored', () => {
    for (const duration_s of [null, undefined, 0, -5, 1.5, 601]) {
      const xml = vastAdm(
        creativeFixture({ format: 'video', image_url: null, video_url: 'https://cdn.example.com/v.mp4', duration_s }),
        links,
        'bid-1',
      );
      expect(xmlText(xml, 'Duration')).toBe('00:00:30');
    }
  });
});
