import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import {
  CONTENT_TYPES,
  encoded,
  extraHeaders,
  forged,
  headerSafe,
  hostileString,
  jsonBody,
  pathSegment,
  queryString,
} from './hostile-input.ts';
import { bannerRequest } from './world.ts';
import { framing, request, withQuery } from './hostile-requests.ts';
import type { Family, HostileContext } from './hostile-requests.ts';

// The engine's public paths, one family each.

const engineGet = (
  family: string,
  path: (ctx: HostileContext) => Arbitrary<string>,
  query: (ctx: HostileContext) => Arbitrary<string>,
  headers: Arbitrary<[string, string | Buffer][]> = extraHeaders,
): Family => ({
  name: family,
  arb: (ctx) =>
    fc
      .tuple(
        path(ctx),
        fc.option(query(ctx), { nil: undefined }),
        headers,
        fc.constantFrom('GET', 'GET', 'GET', 'HEAD'),
      )
      .map(([p, q, h, method]) =>
        request({ family, via: 'engine', method, target: withQuery(p, q), headers: h, token: 'none' }),
      ),
});

const zonesOf = (ctx: HostileContext) => [...Object.values(ctx.world.zones), ctx.ownZone];
const PRICES = [
  '1.5',
  '0',
  '${AUCTION_PRICE}',
  '-1',
  '1e308',
  'NaN',
  '0x10',
  '1,5',
  '9'.repeat(300),
  '%24%7BAUCTION_PRICE%7D',
  '0.0000001',
];
const BROWSER_HEADERS = fc
  .record({
    ua: fc.oneof(
      fc.constantFrom('Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/125.0', 'curl/8.0', 'Googlebot/2.1', ''),
      hostileString,
    ),
    country: fc.oneof(fc.constantFrom('FR', 'us', 'XX', 'T1', ''), hostileString),
    lang: fc.oneof(fc.constantFrom('fr-FR,fr;q=0.9', '*', ''), hostileString),
    page: fc.oneof(fc.constantFrom('https://news.example.org/a', 'null', 'http://[::1]:99999'), hostileString),
  })
  .chain(({ ua, country, lang, page }) =>
    extraHeaders.map((more) => {
      return [
        ['user-agent', headerSafe(ua)],
        ['x-country', headerSafe(country)],
        ['accept-language', headerSafe(lang)],
        ['referer', headerSafe(page)],
        ...more,
      ] as [string, string | Buffer][];
    }),
  );

const PUSH_SEED = {
  zone: 'PUSHZONE',
  subscription: {
    endpoint: 'https://push.test/send/abc',
    expirationTime: null,
    keys: { p256dh: Buffer.alloc(65, 4).toString('base64url'), auth: Buffer.alloc(16, 1).toString('base64url') },
  },
};

export const ENGINE_FAMILIES: readonly Family[] = [
  {
    name: 'POST /openrtb/bid',
    arb: () =>
      fc
        .tuple(
          jsonBody(bannerRequest({ id: 'hostile-bid' }, { id: '1' })).chain(encoded),
          fc.constantFrom('2.5', '2.5', '2.5.1', '2.6', '', ' 2.5 ', '3'),
          fc.constantFrom(...CONTENT_TYPES.slice(0, 8)),
          extraHeaders,
          framing,
        )
        .map(([e, version, type, more, f]) =>
          request({
            family: 'POST /openrtb/bid',
            via: 'engine',
            method: 'POST',
            target: '/openrtb/bid',
            headers: [['content-type', type], ['x-openrtb-version', version], ...e.headers, ...more],
            token: 'none',
            body: e.body,
            framing: f,
          }),
        ),
  },
  engineGet(
    'GET /openrtb/win/:ticket',
    (ctx) => forged(ctx.world.tickets.win).map((t) => `/openrtb/win/${t}`),
    () => queryString(['price'], { price: PRICES }),
  ),
  engineGet(
    'GET /openrtb/bill/:ticket',
    (ctx) => forged(ctx.world.tickets.win).map((t) => `/openrtb/bill/${t}`),
    () => queryString(['price'], { price: PRICES }),
  ),
  engineGet(
    'GET /openrtb/imptracker/:ticket',
    (ctx) => forged(ctx.world.tickets.pixel).map((t) => `/openrtb/imptracker/${t}`),
    () => queryString(['price']),
  ),
  engineGet(
    'GET /t/vast/:event/:ticket',
    (ctx) =>
      fc
        .tuple(
          fc.oneof(fc.constantFrom('start', 'firstQuartile', 'complete', 'error', 'Start'), pathSegment([])),
          forged(ctx.world.tickets.pixel),
        )
        .map(([e, t]) => `/t/vast/${e}/${t}`),
    () => queryString(['code'], { code: ['405', '1', '4050', '%34%30%35'] }),
  ),
  engineGet(
    'GET /w/:file',
    (ctx) =>
      fc
        .oneof(
          fc.constantFrom(...zonesOf(ctx)).map((z) => `${z}.js`),
          pathSegment(['x.js', '.js', 'a'.repeat(33) + '.js']),
        )
        .map((f) => `/w/${f}`),
    () => queryString(['v']),
    fc
      .tuple(extraHeaders, fc.oneof(fc.constant(''), hostileString))
      .map(([h, etag]) => [...h, ['if-none-match', headerSafe(etag)]]),
  ),
  engineGet(
    'GET /imp',
    () => fc.constant('/imp'),
    (ctx) =>
      queryString(['z', 'fp', 's'], {
        z: [...zonesOf(ctx), 'nope', ''],
        fp: ['fp-1', 'f'.repeat(65), ''],
        s: ['e30', Buffer.from('{"__proto__":{"x":1}}').toString('base64url'), '%%%'],
      }),
    BROWSER_HEADERS,
  ),
  engineGet(
    'GET /px/:file',
    () => pathSegment(['AAAAAAAAAAAAAAAAAAAAAA.gif', '.gif', 'x', 'a'.repeat(300) + '.gif']).map((f) => `/px/${f}`),
    () =>
      queryString(['gdpr', 'gdpr_consent'], { gdpr: ['1', '0', ''], gdpr_consent: ['', 'CO%%', 'x'.repeat(20_000)] }),
    fc
      .tuple(extraHeaders, fc.oneof(fc.constant('adnet_vid=AAAAAAAAAAAAAAAAAAAAAA'), hostileString))
      .map(([h, cookie]) => [...h, ['cookie', headerSafe(cookie)]]),
  ),
  engineGet(
    'GET /b/:ticket',
    (ctx) => forged(ctx.world.tickets.beacon).map((t) => `/b/${t}`),
    () => queryString(['e'], { e: ['viewable', 'VIEWABLE', 'rendered'] }),
    BROWSER_HEADERS,
  ),
  engineGet(
    'GET /vast/:file',
    (ctx) =>
      fc
        .oneof(
          fc.constantFrom(...zonesOf(ctx)).map((z) => `${z}.xml`),
          pathSegment(['x.xml', '.xml']),
        )
        .map((f) => `/vast/${f}`),
    () => queryString(['cb']),
    BROWSER_HEADERS,
  ),
  engineGet(
    'GET /c/:impression/:token',
    (ctx) =>
      fc
        .tuple(forged(ctx.world.tickets.click.map(([i]) => i)), forged(ctx.world.tickets.click.map(([, t]) => t)))
        .map(([i, t]) => `/c/${i}/${t}`),
    () =>
      queryString(['ttc', 'x', 'y', 'focus', 'fp', 's'], {
        ttc: ['2000', '-1', '1e9'],
        x: ['5', '0'],
        y: ['5', '-5'],
        focus: ['1', '0', 'true'],
        fp: ['world-fp-0', 'x'.repeat(300)],
      }),
    BROWSER_HEADERS,
  ),
  engineGet(
    'GET /push/vapid-public-key',
    () => fc.constant('/push/vapid-public-key'),
    () => queryString(['x']),
  ),
  {
    name: 'POST /hb/bid',
    arb: (ctx) =>
      fc
        .tuple(
          jsonBody({
            id: 'hostile-hb',
            imp: [{ id: '1', tagid: ctx.world.zones.banner, banner: { format: [{ w: 300, h: 250 }] } }],
            ext: { adnet: { u: 'visitor-id-0000000001' } },
          }).chain(encoded),
          fc.constantFrom('text/plain;charset=UTF-8', 'application/json', ''),
          extraHeaders,
          framing,
        )
        .map(([e, type, more, f]) =>
          request({
            family: 'POST /hb/bid',
            via: 'engine',
            method: 'POST',
            target: '/hb/bid',
            headers: [['content-type', type], ...e.headers, ...more],
            token: 'none',
            body: e.body,
            framing: f,
          }),
        ),
  },
  // Our header bids' win notices carry the same tickets as the render beacon.
  engineGet(
    'GET /hb/won/:ticket',
    (ctx) => forged(ctx.world.tickets.beacon).map((t) => `/hb/won/${t}`),
    () => queryString(['x']),
  ),
  {
    name: 'OPTIONS /push/subscribe',
    arb: () =>
      extraHeaders.map((h) =>
        request({
          family: 'OPTIONS /push/subscribe',
          via: 'engine',
          method: 'OPTIONS',
          target: '/push/subscribe',
          headers: h,
          token: 'none',
        }),
      ),
  },
  {
    name: 'POST /push/subscribe',
    arb: (ctx) =>
      fc
        .tuple(
          jsonBody({ ...PUSH_SEED, zone: ctx.world.zones.push }).chain(encoded),
          fc.constantFrom('text/plain;charset=UTF-8', 'application/json', 'application/x-www-form-urlencoded', ''),
          extraHeaders,
          framing,
        )
        .map(([e, type, more, f]) =>
          request({
            family: 'POST /push/subscribe',
            via: 'engine',
            method: 'POST',
            target: '/push/subscribe',
            headers: [['content-type', type], ...e.headers, ...more],
            token: 'none',
            body: e.body,
            framing: f,
          }),
        ),
  },
  {
    name: 'POST /push/unsubscribe',
    arb: (ctx) =>
      fc
        .tuple(
          jsonBody({ endpoint: PUSH_SEED.subscription.endpoint, zone: ctx.world.zones.push }).chain(encoded),
          fc.constantFrom('text/plain;charset=UTF-8', 'application/json', ''),
          extraHeaders,
          framing,
        )
        .map(([e, type, more, f]) =>
          request({
            family: 'POST /push/unsubscribe',
            via: 'engine',
            method: 'POST',
            target: '/push/unsubscribe',
            headers: [['content-type', type], ...e.headers, ...more],
            token: 'none',
            body: e.body,
            framing: f,
          }),
        ),
  },
  engineGet(
    'GET /push/sw.js',
    () => fc.constant('/push/sw.js'),
    () => queryString(['download'], { download: ['1', '0', 'yes'] }),
  ),
  {
    name: 'other methods on engine paths',
    arb: (ctx) =>
      fc
        .tuple(
          fc.constantFrom('PUT', 'DELETE', 'PATCH', 'POST', 'GET'),
          fc.constantFrom(
            '/openrtb/bid',
            '/imp',
            `/w/${ctx.world.zones.banner}.js`,
            '/push/subscribe',
            '/openrtb/win/x',
            '/engine/healthz',
          ),
          fc.option(jsonBody(undefined), { nil: undefined }),
        )
        .map(([method, target, body]) =>
          request({
            family: 'other methods on engine paths',
            via: 'engine',
            method,
            target,
            headers: [['content-type', 'application/json']],
            token: 'none',
            body,
          }),
        ),
  },
];
