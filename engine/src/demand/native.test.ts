import { describe, expect, it } from 'vitest';
import { parseNativeRequest } from '../openrtb/native-request.ts';
import { NATIVE_PUSH_REQUEST, NATIVE_SUPPLY_REQUEST, nativeHtml, readNativeAnswer, readPushAnswer } from './native.ts';

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

describe('push slots offered to demand partners', () => {
  const push = (o: { title?: unknown; text?: unknown; icon?: unknown; link?: unknown } = {}) =>
    JSON.stringify({
      native: {
        assets: [
          { id: 1, title: { text: o.title ?? 'Sale\u2028today' } },
          ...(o.icon === null ? [] : [{ id: 2, img: { url: o.icon ?? 'https://cdn.dsp.example/i.png' } }]),
          { id: 3, data: { value: o.text ?? 'x'.repeat(300) } },
        ],
        link: { url: o.link ?? 'https://shop.dsp.example/a b?q=<1>' },
      },
    });

  it('asks for a 50-character title (required), an icon and a 120-character text, as Native 1.2 readers (ours too) read it', () => {
    expect(parseNativeRequest(NATIVE_PUSH_REQUEST)).toEqual([
      { id: 1, required: true, kind: 'title', len: 50 },
      { id: 2, required: false, kind: 'img', wmin: 64, hmin: 64 },
      { id: 3, required: false, kind: 'desc', len: 120 },
    ]);
    expect(JSON.parse(NATIVE_PUSH_REQUEST)).toMatchObject({ ver: '1.2', ext: { format: 'push' } });
  });

  it('takes plain texts within the limits, an https icon and a landing normalised as the API stores one', () => {
    expect(readPushAnswer(push(), null)).toEqual({
      ok: true,
      answer: { title: 'Sale today', text: 'x'.repeat(120), icon: 'https://cdn.dsp.example/i.png', landing: 'https://shop.dsp.example/a%20b?q=%3C1%3E' },
    });
    expect(readPushAnswer(push({ icon: null }), null)).toMatchObject({ ok: true, answer: { icon: '' } });
  });

  it('discards no title as no_markup, a bad icon as bad_icon, a bad or blocked landing as bad_landing', () => {
    const discard = (adm: string, blocked: ReadonlySet<string> | null = null) => {
      const r = readPushAnswer(adm, blocked);
      return r.ok ? 'ok' : r.discard;
    };
    expect(discard('<b>html</b>')).toBe('no_markup');
    expect(discard(push({ title: ' \n ' }))).toBe('no_markup');
    expect(discard(push({ icon: 'http://cdn.dsp.example/i.png' }))).toBe('bad_icon');
    expect(discard(push({ icon: 'javascript:alert(1)' }))).toBe('bad_icon');
    expect(discard(push({ icon: `https://cdn.dsp.example/${'i'.repeat(2100)}` }))).toBe('bad_icon');
    for (const link of ['javascript:alert(1)', 'data:text/html,x', 'https://a.example/\r\nSet-Cookie: x=1', 'https://a.example/]]>', '/relative', 7])
      expect(discard(push({ link })), String(link)).toBe('bad_landing');
    // The publisher's block list, matched on the landing's host and its parents, as for our campaigns.
    expect(discard(push({ link: 'https://www.shop.dsp.example/x' }), new Set(['dsp.example']))).toBe('bad_landing');
    expect(discard(push({ link: 'https://shop.other.example/x' }), new Set(['dsp.example']))).toBe('ok');
  });
});
