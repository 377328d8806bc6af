import { describe, expect, it } from 'vitest';
import { parseNativeRequest } from '../openrtb/native-request.ts';
import {
  NATIVE_IN_PAGE_PUSH_REQUEST,
  NATIVE_PUSH_REQUEST,
  NATIVE_SUPPLY_REQUEST,
  readNativeAnswer,
  readPushAnswer,
} from './native.ts';

const answer = (over: Record<string, unknown> = {}) => ({
  ver: '1.2',
  assets: [
    { id: 1, title: { text: 'Big <b>sale</b>' } },
    { id: 2, img: { url: 'https://cdn.dsp.example/i.jpg', w: 1200, h: 627 } },
    { id: 3, data: { value: 'Fresh "deals" & more' } },
    { id: 4, data: { value: 'Shop now' } },
    { id: 5, data: { value: 'Acme <i>Inc</i>' } },
  ],
  link: {
    url: 'https://shop.example/?a=1&b=2',
    clicktrackers: ['https://dsp.example/click', 'file:///etc/passwd', 'https://dsp.example/click'],
  },
  imptrackers: ['https://dsp.example/imp?p=1', 'javascript:alert(1)'],
  eventtrackers: [
    { event: 1, method: 1, url: 'https://dsp.example/ev' },
    { event: 1, method: 2, url: 'https://dsp.example/js.js' },
  ],
  ...over,
});

describe('native offered to demand partners', () => {
  it('asks for a title and main image (required), a description, a call to action and a sponsor, as Native 1.2 readers (ours too) read it', () => {
    expect(parseNativeRequest(NATIVE_SUPPLY_REQUEST)).toEqual([
      { id: 1, required: true, kind: 'title', len: 90 },
      { id: 2, required: true, kind: 'img', wmin: 300, hmin: 157 },
      { id: 3, required: false, kind: 'desc', len: 140 },
      { id: 4, required: false, kind: 'cta', len: 25 },
      // Sponsored-by (data type 1): our exchange side has none to give, our widget shows a partner's.
      { id: 5, required: false, kind: 'other' },
    ]);
    expect((JSON.parse(NATIVE_SUPPLY_REQUEST) as { assets: unknown[] }).assets[4]).toEqual({
      id: 5,
      required: 0,
      data: { type: 1, len: 25 },
    });
    expect(JSON.parse(NATIVE_SUPPLY_REQUEST)).toMatchObject({ ver: '1.2', context: 1, plcmttype: 1 });
  });

  it('reads a 1.2 answer, bare or wrapped in `native`, texts as given, keeping only https image and pixels, http(s) link and click trackers', () => {
    const a = readNativeAnswer(JSON.stringify(answer()), null);
    expect(a).toEqual({
      ok: true,
      answer: {
        // Text, not markup: the widget inserts it as text, so it is kept as the partner wrote it.
        title: 'Big <b>sale</b>',
        image: 'https://cdn.dsp.example/i.jpg',
        imageW: 1200,
        imageH: 627,
        text: 'Fresh "deals" & more',
        cta: 'Shop now',
        sponsored: 'Acme <i>Inc</i>',
        landing: 'https://shop.example/?a=1&b=2',
        // The script event tracker (method 2) and the javascript: one are dropped.
        pixels: ['https://dsp.example/imp?p=1', 'https://dsp.example/ev'],
        clicktrackers: ['https://dsp.example/click'],
      },
    });
    expect(readNativeAnswer(JSON.stringify({ native: answer() }), null)).toEqual(a);
  });

  it('discards answers that do not fill the required assets, or are not JSON, as no_markup; a bad or blocked landing as bad_landing', () => {
    const discard = (adm: string, blocked: ReadonlySet<string> | null = null) => {
      const r = readNativeAnswer(adm, blocked);
      return r.ok ? 'ok' : r.discard;
    };
    for (const link of ['javascript:alert(1)', 'https://a.example/\r\nSet-Cookie: x=1', '/relative'])
      expect(discard(JSON.stringify(answer({ link: { url: link } }))), link).toBe('bad_landing');
    // The publisher's block list applies to a native landing as to a push one and to our campaigns.
    expect(discard(JSON.stringify(answer()), new Set(['shop.example']))).toBe('bad_landing');
    expect(discard(JSON.stringify(answer()), new Set(['other.example']))).toBe('ok');
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
      // The page loads the image: http would be mixed content on an https page.
      JSON.stringify(
        answer({
          assets: [
            { id: 1, title: { text: 'T' } },
            { id: 2, img: { url: 'http://cdn.dsp.example/i.jpg' } },
          ],
        }),
      ),
      JSON.stringify([answer()]),
      'null',
    ])
      expect(discard(adm), adm).toBe('no_markup');
  });

  it('bounds what the partner can make the page load: https pixels only, five at most, a jstracker never; texts cut to what we asked', () => {
    const many = Array.from({ length: 9 }, (_, i) => `https://dsp.example/p${i}`);
    const r = readNativeAnswer(
      JSON.stringify(
        answer({
          imptrackers: ['http://dsp.example/plain', ...many],
          jstracker: '<script src="https://dsp.example/t.js"></script>',
          assets: [
            { id: 1, title: { text: 'x'.repeat(200) } },
            { id: 2, img: { url: 'https://cdn.dsp.example/i.jpg', w: 0, h: 99999 } },
            { id: 3, data: { value: 'y'.repeat(500) } },
          ],
        }),
      ),
      null,
    );
    const a = r.ok ? r.answer : undefined;
    expect(a?.pixels).toEqual(many.slice(0, 5));
    expect(JSON.stringify(a)).not.toContain('t.js');
    expect([a?.title.length, a?.text.length, a?.imageW, a?.imageH, a?.cta, a?.sponsored]).toEqual([
      90,
      140,
      undefined,
      undefined,
      '',
      '',
    ]);
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
    // An in-page push zone asks for the same assets; its ext.format tells partners the toast is shown in a page.
    expect(parseNativeRequest(NATIVE_IN_PAGE_PUSH_REQUEST)).toEqual(parseNativeRequest(NATIVE_PUSH_REQUEST));
    expect(JSON.parse(NATIVE_IN_PAGE_PUSH_REQUEST)).toMatchObject({ ver: '1.2', ext: { format: 'in_page_push' } });
  });

  it('takes plain texts within the limits, an https icon and a landing normalised as the API stores one', () => {
    expect(readPushAnswer(push(), null)).toEqual({
      ok: true,
      answer: {
        title: 'Sale today',
        text: 'x'.repeat(120),
        icon: 'https://cdn.dsp.example/i.png',
        landing: 'https://shop.dsp.example/a%20b?q=%3C1%3E',
        clicktrackers: [],
      },
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
    for (const link of [
      'javascript:alert(1)',
      'data:text/html,x',
      'https://a.example/\r\nSet-Cookie: x=1',
      'https://a.example/]]>',
      '/relative',
      7,
    ])
      expect(discard(push({ link })), String(link)).toBe('bad_landing');
    // The publisher's block list, matched on the landing's host and its parents, as for our campaigns.
    expect(discard(push({ link: 'https://www.shop.dsp.example/x' }), new Set(['dsp.example']))).toBe('bad_landing');
    expect(discard(push({ link: 'https://shop.other.example/x' }), new Set(['dsp.example']))).toBe('ok');
  });
});
