import { describe, expect, it } from 'vitest';
import { parseNativeRequest } from '../openrtb/native-request.ts';
import { NATIVE_SUPPLY_REQUEST, nativeHtml, readNativeAnswer } from './native.ts';

const answer = (over: Record<string, unknown> = {}) => ({
  ver: '1.2',
  assets: [
    { id: 1, title: { text: 'Big <b>sale</b>' } },
    { id: 2, img: { url: 'https://cdn.dsp.example/i.jpg', w: 1200, h: 627 } },
    { id: 3, data: { value: 'Fresh "deals" & more' } },
    { id: 4, data: { value: 'Shop now' } },
  ],
  link: { url: 'https://shop.example/?a=1&b=2' },
  imptrackers: ['https://dsp.example/imp?p=1', 'javascript:alert(1)'],
  eventtrackers: [
    { event: 1, method: 1, url: 'https://dsp.example/ev' },
    { event: 1, method: 2, url: 'https://dsp.example/js.js' },
  ],
  ...over,
});

describe('native offered to demand partners', () => {
  it('asks for a title and main image (required), a description and a call to action, as Native 1.2 readers (ours too) read it', () => {
    expect(parseNativeRequest(NATIVE_SUPPLY_REQUEST)).toEqual([
      { id: 1, required: true, kind: 'title', len: 90 },
      { id: 2, required: true, kind: 'img', wmin: 300, hmin: 157 },
      { id: 3, required: false, kind: 'desc', len: 140 },
      { id: 4, required: false, kind: 'cta', len: 25 },
    ]);
    expect(JSON.parse(NATIVE_SUPPLY_REQUEST)).toMatchObject({ ver: '1.2', context: 1, plcmttype: 1 });
  });

  it('reads a 1.2 answer, bare or wrapped in `native`, keeping only http(s) image, link and image pixels', () => {
    const a = readNativeAnswer(JSON.stringify(answer()));
    expect(a).toEqual({
      title: 'Big <b>sale</b>',
      image: 'https://cdn.dsp.example/i.jpg',
      text: 'Fresh "deals" & more',
      cta: 'Shop now',
      link: 'https://shop.example/?a=1&b=2',
      pixels: ['https://dsp.example/imp?p=1', 'https://dsp.example/ev'],
    });
    expect(readNativeAnswer(JSON.stringify({ native: answer() }))).toEqual(a);
  });

  it('refuses answers that do not fill the required assets, or are not JSON', () => {
    for (const adm of [
      '<div>banner markup</div>',
      JSON.stringify(answer({ assets: [{ id: 2, img: { url: 'https://cdn.dsp.example/i.jpg' } }] })),
      JSON.stringify(
        answer({
          assets: [
            { id: 1, title: { text: 'T' } },
            { id: 2, img: { url: 'data:image/png;base64,AAAA' } },
          ],
        }),
      ),
      JSON.stringify(answer({ link: { url: 'javascript:alert(1)' } })),
      JSON.stringify([answer()]),
      'null',
    ])
      expect(readNativeAnswer(adm), adm).toBeUndefined();
  });

  it('renders it as inert HTML: text escaped, nothing of the partner but its checked URLs', () => {
    const html = nativeHtml(readNativeAnswer(JSON.stringify(answer())) ?? ({} as never));
    expect(html).toContain('<b>Big &lt;b&gt;sale&lt;/b&gt;</b>');
    expect(html).toContain('<p>Fresh &quot;deals&quot; &amp; more</p>');
    expect(html).toContain('href="https://shop.example/?a=1&amp;b=2"');
    expect(html).not.toMatch(/javascript:|<script|js\.js/);
    expect(html.match(/width="1" height="1"/g)).toHaveLength(2);
  });
});
