import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { REST_ROUTES } from '../../../admin/src/http/rest-routes.ts';
import type { RestRoute } from '../../../admin/src/http/rest-routes.ts';
import { signPostback } from './hostile-world.ts';
import type { ServedWorld } from './hostile-world.ts';
import {
  BAD_UTF8,
  CONTENT_TYPES,
  encoded,
  extraHeaders,
  forged,
  formBody,
  hasControl,
  headerSafe,
  hostileJson,
  hostileString,
  jsonBody,
  multipartBody,
  mutatedQuery,
  oneIn,
  pathSegment,
  pct,
  queryString,
} from './hostile-input.ts';
import { bannerRequest } from './world.ts';

// One generated request per surface of the product: the engine's public paths, every REST route of
// the admin (directly and through the engine's proxy), the tracker postback, creative uploads, tRPC,
// the static paths, and requests malformed below HTTP's semantics.

/**
 * Which bearer token a request carries; resolved when it is sent, since tokens are re-issued after a sign-out.
 * `cabinet`: the advertiser's token in the session cookie, with the cabinet's headers, as the cabinet sends it.
 */
export type TokenKind = 'none' | 'garbage' | 'malformed' | 'advertiser' | 'publisher' | 'admin' | 'cabinet';

export interface HostileRequest {
  /** The route template it aims at, e.g. `GET /openrtb/win/:ticket` or `POST /api/adv/campaigns`. */
  family: string;
  via: 'engine' | 'admin';
  method: string;
  target: string | Buffer;
  headers: [string, string | Buffer][];
  token: TokenKind;
  body?: Buffer;
  framing?: 'length' | 'chunked' | 'none';
  protocolLevel?: boolean;
  trpc?: boolean;
}

/** The hostile accounts' own resources (their ids reach past 404s into validation) and the world's (their ids draw 403s). */
export interface HostileContext {
  world: ServedWorld;
  worldCreativeIds: number[];
  own: { advertiserId: number; campaignId: number; videoCampaignId: number; creativeId: number; siteId: number; zoneId: number; partnerId: number };
  /** The hostile publisher's native zone, serving the hostile advertiser's campaign. */
  ownZone: string;
  /** Clicks on the hostile advertiser's ads: postbacks signed with its secret for them reach a conversion. */
  ownClickIds: string[];
  advertiserSecret: string;
  today: string;
}

const excerpt = (b: string | Buffer, n: number) => {
  const s = Buffer.isBuffer(b) ? b.toString('latin1') : b;
  return JSON.stringify(s.length > n ? `${s.slice(0, n)}…(${s.length} bytes)` : s);
};

/** How fast-check prints a request in a failure: short, with the sizes of what it cut. */
export function describeRequest(r: HostileRequest): string {
  const headers = r.headers.map(([k, v]) => `${k}: ${excerpt(v, 60)}`).join('; ');
  return `${r.family} via ${r.via}: ${r.method} ${excerpt(r.target, 200)} token=${r.token} [${headers}] body=${r.body ? excerpt(r.body, 300) : 'none'}${r.framing && r.framing !== 'length' ? ` framing=${r.framing}` : ''}`;
}

function request(r: HostileRequest): HostileRequest {
  Object.defineProperty(r, fc.toStringMethod, { value: () => describeRequest(r), enumerable: false });
  return r;
}

const framing = fc.constantFrom<'length' | 'chunked'>('length', 'length', 'length', 'length', 'chunked');
const withQuery = (path: string, query: string | undefined) => (query ? `${path}?${query}` : path);
const anyMethod = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS');

// ---------------------------------------------------------------- the engine

export interface Family {
  name: string;
  arb: (ctx: HostileContext) => Arbitrary<HostileRequest>;
}

const engineGet = (
  family: string,
  path: (ctx: HostileContext) => Arbitrary<string>,
  query: (ctx: HostileContext) => Arbitrary<string>,
  headers: Arbitrary<[string, string | Buffer][]> = extraHeaders,
): Family => ({
  name: family,
  arb: (ctx) =>
    fc
      .tuple(path(ctx), fc.option(query(ctx), { nil: undefined }), headers, fc.constantFrom('GET', 'GET', 'GET', 'HEAD'))
      .map(([p, q, h, method]) => request({ family, via: 'engine', method, target: withQuery(p, q), headers: h, token: 'none' })),
});

const zonesOf = (ctx: HostileContext) => [...Object.values(ctx.world.zones), ctx.ownZone];
const PRICES = ['1.5', '0', '${AUCTION_PRICE}', '-1', '1e308', 'NaN', '0x10', '1,5', '9'.repeat(300), '%24%7BAUCTION_PRICE%7D', '0.0000001'];
const BROWSER_HEADERS = fc
  .record({
    ua: fc.oneof(fc.constantFrom('Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/125.0', 'curl/8.0', 'Googlebot/2.1', ''), hostileString),
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
        .tuple(fc.oneof(fc.constantFrom('start', 'firstQuartile', 'complete', 'error', 'Start'), pathSegment([])), forged(ctx.world.tickets.pixel))
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
    fc.tuple(extraHeaders, fc.oneof(fc.constant(''), hostileString)).map(([h, etag]) => [...h, ['if-none-match', headerSafe(etag)]]),
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
    (ctx) => fc.tuple(forged(ctx.world.tickets.click.map(([i]) => i)), forged(ctx.world.tickets.click.map(([, t]) => t))).map(([i, t]) => `/c/${i}/${t}`),
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
    name: 'OPTIONS /push/subscribe',
    arb: () =>
      extraHeaders.map((h) =>
        request({ family: 'OPTIONS /push/subscribe', via: 'engine', method: 'OPTIONS', target: '/push/subscribe', headers: h, token: 'none' }),
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
          fc.constantFrom('/openrtb/bid', '/imp', `/w/${ctx.world.zones.banner}.js`, '/push/subscribe', '/openrtb/win/x', '/engine/healthz'),
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

// ---------------------------------------------------------------- the admin's REST table

const USD = { name: 'Hostile', vertical: 'ecommerce', format: 'banner', bid_type: 'cpm', bid_usd: 1.2, daily_budget_usd: 100 };
const LANDING = 'https://shop.example.com/p?c={click_id}';

/** A valid body for each JSON route: mutations of it get past the first field into the rest of the validation. */
function jsonSeed(procedure: string, ctx: HostileContext): Record<string, unknown> | undefined {
  const seeds: Record<string, Record<string, unknown>> = {
    'auth.register': { email: 'hostile-new@example.com', password: 'password-123', role: 'advertiser' },
    'auth.token': { email: 'nobody@example.com', password: 'password-123' },
    'auth.changePassword': { current_password: 'not-the-password', new_password: 'password-456' },
    'adv.campaigns.create': { ...USD, geo_include: ['us', 'de'], languages: ['en'] },
    'adv.campaigns.update': { name: 'Renamed', bid_usd: 1, daily_budget_usd: 10, geo_include: ['fr'], languages: ['fr'] },
    'adv.creatives.update': { title: 'T', body: 'B', landing_url: LANDING, cta_text: 'Go', weight: 2 },
    'adv.ai.generate': { offer: 'Shoes', cta: 'Buy', geo: 'US', lang: 'en' },
    'adv.video.generate': {
      campaign_id: ctx.own.videoCampaignId,
      avatar_id: 'anna',
      voice_id: 'v1',
      script: 'Hello',
      language: 'en',
      orientation: 'vertical',
    },
    'adv.video.attach': { campaign_id: ctx.own.videoCampaignId, title: 'T', body: 'B', landing_url: LANDING, cta_text: 'Go' },
    'adv.profile.update': { postback_url: 'http://127.0.0.1:9/pb?c={click_id}&p={payout_cents}' },
    'pub.sites.create': { domain: 'hostile-site.test', category: 'news', language: 'en', traffic_estimate_daily: 1000 },
    'pub.sites.update': { category: 'news', language: 'de', traffic_estimate_daily: 10 },
    'pub.zones.create': { site_id: ctx.own.siteId, name: 'Z', format: 'banner', banner_width: 300, banner_height: 250 },
    'pub.zones.update': { name: 'Z2', banner_width: 320, banner_height: 50 },
    'admin.rejectSite': { reason: 'Not a real site' },
    'admin.rejectCreative': { reason: 'Misleading' },
    'admin.rebuildSpend': { day: '2020-01-01' },
    'admin.createPartner': { name: 'Exchange B', allowed_ips: ['198.51.100.7'], qps_limit: 10, billing_notice: 'nurl' },
    'admin.updatePartner': { name: 'Exchange C', allowed_ips: ['198.51.100.8/31'], qps_limit: 5 },
    'admin.creditAdvertiser': { amount_cents: 100, reason: 'Goodwill' },
    // Billing (docs/billing.md).
    'adv.deposits.create': { amount_usd: 25 },
    'pub.payouts.setSettings': { method: 'wire', details: { account_holder: 'A', iban: 'DE89370400440532013000', swift: 'COBADEFF' }, threshold_usd: 50 },
    'admin.payoutPaid': { reference: 'WIRE-1' },
    'admin.payoutHold': { reason: 'Review' },
    'admin.refundDeposit': { reason: 'Requested' },
    // Email verification, password reset, notices, API keys (accounts).
    'auth.verifyEmail': { token: 'A'.repeat(43) },
    'auth.passwordReset': { email: 'nobody@example.com' },
    'auth.passwordResetConfirm': { token: 'A'.repeat(43), password: 'password-456' },
    'adv.notifications.set': { low_balance_usd: 10 },
    'keys.create': { name: 'hostile', scopes: ['read', 'stats'] },
  };
  return seeds[procedure];
}

function queryKnown(procedure: string, ctx: HostileContext): Record<string, readonly string[]> {
  const stats = {
    from: [ctx.today, '2020-02-29', '2021-02-29', '0000-01-01', '9999-12-31', '1969-12-31'],
    to: [ctx.today, '2099-01-01', '2026-13-01'],
    group_by: ['day', 'hour,geo', 'campaign,creative,zone,site,device', 'day,day', 'bogus', ' '],
    tz: ['UTC', 'Europe/Berlin', 'Etc/GMT+14', 'America/Argentina/ComodRivadavia', 'Local', '+05:00'],
    format: ['csv', 'json', 'xml'],
    campaign_id: [String(ctx.own.campaignId), String(ctx.world.campaignIds[0])],
    advertiser_id: [String(ctx.own.advertiserId), String(ctx.world.advertiser.id)],
  };
  const page = { limit: ['10', '0', '1001', '-1'], offset: ['0', '-1', '1e9'] };
  return procedure.includes('stats') ? stats : page;
}

/** A valid query for each query route, to change a field at a time. */
function querySeed(procedure: string, ctx: HostileContext): Record<string, string> {
  const week = new Date(Date.parse(ctx.today) - 6 * 86_400_000).toISOString().slice(0, 10);
  const stats = { from: week, to: ctx.today, group_by: 'day', tz: 'UTC', format: 'json' };
  const seeds: Record<string, Record<string, string>> = {
    'adv.stats.get': { ...stats, group_by: 'day,campaign', campaign_id: String(ctx.own.campaignId) },
    'pub.stats.get': { ...stats, group_by: 'day,zone' },
    'pub.stats.uncounted': stats,
    'admin.stats': { ...stats, group_by: 'geo,device', advertiser_id: String(ctx.own.advertiserId) },
    'admin.listAdvertisers': { offset: '0', limit: '10' },
    'admin.listDeposits': { advertiser_id: String(ctx.own.advertiserId), limit: '10' },
  };
  return seeds[procedure] ?? { limit: '10' };
}

const roleOf = (path: string): TokenKind =>
  path.startsWith('/api/adv') ? 'advertiser' : path.startsWith('/api/pub') ? 'publisher' : path.startsWith('/api/admin') ? 'admin' : 'advertiser';

/** Ids a path parameter may name: for an admin's token only the hostile accounts' own, so that no admin action changes the world. */
function idsFor(token: TokenKind, ctx: HostileContext): number[] {
  const o = ctx.own;
  const own = [o.advertiserId, o.campaignId, o.videoCampaignId, o.creativeId, o.siteId, o.zoneId, o.partnerId];
  if (token === 'admin') return own;
  return [...own, ...ctx.world.campaignIds, ...ctx.worldCreativeIds, ctx.world.siteId, ...ctx.world.zoneIds, ctx.world.advertiser.id];
}

const tokenFor = (route: RestRoute): Arbitrary<TokenKind> => {
  const role = route.auth === false ? 'none' : roleOf(route.path);
  return fc.constantFrom<TokenKind>(role, role, role, role, 'none', 'garbage', 'malformed', 'advertiser', 'publisher', 'admin');
};

/** A body whatever the route takes: JSON, a form, multipart, or something else under a claimed type. */
interface RestBody {
  body?: Buffer;
  headers: [string, string | Buffer][];
}

function restBody(route: RestRoute, ctx: HostileContext): Arbitrary<RestBody> {
  const typed = (types: readonly string[], body: Arbitrary<Buffer>) =>
    fc
      .tuple(body.chain(encoded), fc.constantFrom(...types))
      .map(([e, type]) => ({ body: e.body, headers: [['content-type', type], ...e.headers] as [string, string][] }));
  switch (route.input) {
    case 'json':
      return typed([...Array<string>(12).fill('application/json'), ...CONTENT_TYPES], jsonBody(jsonSeed(route.procedure, ctx)));
    case 'multipart':
      return multipartBody({ title: 'Great offer', body: 'Buy now', landing_url: LANDING, cta_text: 'Shop' }).chain(({ body, contentType }) =>
        fc.constantFrom(contentType, contentType, contentType, 'application/json', 'multipart/mixed; boundary=x', 'multipart/form-data').map((type) => ({
          body,
          headers: [['content-type', type]] as [string, string][],
        })),
      );
    case 'form':
      return typed(
        ['application/x-www-form-urlencoded', 'text/plain', 'application/json'],
        formBody({ click_id: ctx.world.clickIds[1] ?? '', payout: '100', status: 'approved', txid: 't' }).map((s) => Buffer.from(s, 'latin1')),
      );
    case 'query':
    case 'none':
      return fc.oneof({ weight: 3, arbitrary: fc.constant<RestBody>({ headers: [] }) }, { weight: 1, arbitrary: typed(CONTENT_TYPES, jsonBody(undefined)) });
    default:
      return fc.constant<RestBody>({ headers: [] });
  }
}

function restFamily(route: RestRoute): Family {
  const name = `${route.method} ${route.path}`;
  return {
    name,
    arb: (ctx) =>
      tokenFor(route).chain((token) => {
        const ids = idsFor(token, ctx);
        const params = route.path.match(/\{[a-z_]+\}/g) ?? [];
        const fields = Object.keys(queryKnown(route.procedure, ctx));
        return fc
          .tuple(
            fc.tuple(
              ...params.map((p) =>
                p === '{month}' ? fc.oneof(fc.constantFrom('2026-11', '2026-02', '1970-01', '9999-12'), pathSegment([])) : pathSegment(ids),
              ),
            ),
            route.input === 'query'
              ? fc.oneof(
                  { weight: 3, arbitrary: mutatedQuery(querySeed(route.procedure, ctx), queryKnown(route.procedure, ctx)) },
                  { weight: 1, arbitrary: oneIn(8, queryString(fields, queryKnown(route.procedure, ctx))) },
                )
              : oneIn(6, queryString([])),
            restBody(route, ctx),
            extraHeaders,
            fc.oneof({ weight: 9, arbitrary: fc.constant(route.method) }, { weight: 1, arbitrary: anyMethod }),
            fc.constantFrom<'engine' | 'admin'>('engine', 'admin'),
            framing,
          )
          .map(([segs, query, b, more, method, via, f]) => {
            let i = 0;
            const path = route.path.replace(/\{[a-z_]+\}/g, () => segs[i++] ?? '');
            return request({
              family: name,
              via,
              method,
              target: withQuery(path, query ?? undefined),
              headers: [...b.headers, ...more.filter(([k]) => k !== 'authorization')],
              token,
              body: b.body,
              framing: f,
            });
          });
      }),
  };
}

export const REST_FAMILIES: readonly Family[] = REST_ROUTES.filter((r) => r.path.startsWith('/api/')).map(restFamily);

// ---------------------------------------------------------------- the tracker postback

/** Signed with the hostile advertiser's secret whatever the values, so they reach the checks behind the signature. */
export const POSTBACK_FAMILY: Family = {
  name: 'POST|GET /postback/in',
  arb: (ctx) => {
    const field = (known: readonly string[]) => fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, hostileString);
    return fc
      .record({
        click_id: field([...ctx.ownClickIds, ...ctx.ownClickIds, ...ctx.world.clickIds, '00000000-0000-4000-8000-000000000000', 'not-a-uuid']),
        payout: field(['100', '0', '1500', '2147483647', '-1', '1.5', '99999999999999999999', '0x10']),
        status: field(['approved', 'pending', 'rejected', 'paid']),
        txid: field(['tx-1', 'tx-2', 'x'.repeat(128), 'x'.repeat(129), '\u0000', '=cmd|" /C calc"!A0', 'Ω≈ç']),
        signing: fc.constantFrom('hex', 'hex', 'base64', 'base64', 'forged', 'none', 'other-secret'),
        carrier: fc.constantFrom('form', 'headers', 'query'),
        via: fc.constantFrom<'engine' | 'admin'>('engine', 'admin'),
        padding: oneIn(10, fc.integer({ min: 1, max: 40_000 })),
        more: extraHeaders,
      })
      .map((r) => {
        const f = { click_id: r.click_id, payout: r.payout, status: r.status, txid: r.txid };
        const key = r.signing === 'other-secret' ? 'someone-else' : ctx.advertiserSecret;
        const hex = signPostback(key, f);
        const sig = r.signing === 'base64' ? Buffer.from(hex, 'hex').toString('base64') : r.signing === 'forged' ? hex.replace(/^./, 'f') : hex;
        const auth: Record<string, string> = r.signing === 'none' ? {} : { secret: key, sig };
        const fields = new URLSearchParams({ ...f, ...(r.carrier === 'headers' ? {} : auth), ...(r.padding ? { pad: 'p'.repeat(r.padding) } : {}) }).toString();
        const headers: [string, string | Buffer][] =
          r.carrier === 'headers' && r.signing !== 'none'
            ? [
                ['x-service-secret', key],
                ['x-service-signature', sig],
              ]
            : [];
        const get = r.carrier === 'query';
        return request({
          family: 'POST|GET /postback/in',
          via: r.via,
          method: get ? 'GET' : 'POST',
          target: get ? `/postback/in?${fields}` : '/postback/in',
          headers: [...(get ? [] : ([['content-type', 'application/x-www-form-urlencoded']] as [string, string][])), ...headers, ...r.more],
          token: 'none',
          body: get ? undefined : Buffer.from(fields, 'latin1'),
        });
      });
  },
};

// ---------------------------------------------------------------- tRPC, the static paths, the protocol

// auth.session is the cabinet's sign-in, on tRPC only.
const PROCEDURES = [...new Set([...REST_ROUTES.map((r) => r.procedure), 'auth.session'])];

export const TRPC_FAMILY: Family = {
  name: '/trpc/:procedure',
  arb: () =>
    fc
      .record({
        procedure: fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...PROCEDURES) },
          { weight: 1, arbitrary: fc.constantFrom('__proto__', 'adv.__proto__', 'constructor', 'adv.campaigns.constructor', 'toString', 'a,b,__proto__', '') },
          { weight: 1, arbitrary: hostileString.map((s) => pct(s.slice(0, 200))) },
        ),
        input: hostileJson(['id', 'json', '0', 'campaign_id']),
        batch: fc.boolean(),
        method: fc.constantFrom('GET', 'POST', 'POST', 'PUT'),
        token: fc.constantFrom<TokenKind>('none', 'advertiser', 'publisher', 'admin', 'garbage', 'cabinet'),
        via: fc.constantFrom<'engine' | 'admin'>('engine', 'admin'),
        raw: oneIn(3, fc.oneof(jsonBody(undefined), fc.constantFrom(...BAD_UTF8))),
      })
      .map((r) => {
        const payload = r.batch ? { 0: r.input, 1: { json: r.input } } : r.input;
        const text = JSON.stringify(payload) ?? 'null';
        const procs = r.batch ? `${r.procedure},${r.procedure}` : r.procedure;
        const query = `${r.batch ? 'batch=1&' : ''}input=${pct(text.slice(0, 6_000))}`;
        return request({
          family: '/trpc/:procedure',
          via: r.via,
          method: r.method,
          target: r.method === 'GET' ? `/trpc/${procs}?${query}` : `/trpc/${procs}${r.batch ? '?batch=1' : ''}`,
          headers: [['content-type', 'application/json']],
          token: r.token,
          body: r.method === 'GET' ? undefined : (r.raw ?? Buffer.from(text)),
          trpc: true,
        });
      }),
};

export const STATIC_FAMILY: Family = {
  name: 'static paths (/media, /cabinet, /docs, probes, unknown)',
  arb: () =>
    fc
      .tuple(
        fc.constantFrom('/media/', '/cabinet/', '/docs/', '/api/', '/', '/sellers.json', '/openapi.json', '/healthz', '/engine/healthz', '/docs/api'),
        fc.option(pathSegment(['a.png', '..', '..%2f..%2fetc%2fpasswd', 'x.png%00.html', 'index.html', 'assets/app.js', 'assets/%2e%2e/index.html', 'api']), {
          nil: undefined,
        }),
        fc.constantFrom('GET', 'GET', 'HEAD', 'POST', 'DELETE'),
        fc.constantFrom<'engine' | 'admin'>('engine', 'admin'),
        extraHeaders,
      )
      .map(([prefix, seg, method, via, headers]) =>
        request({ family: 'static paths (/media, /cabinet, /docs, probes, unknown)', via, method, target: `${prefix}${seg ?? ''}`, headers, token: 'none' }),
      ),
};

/** Malformed below HTTP's semantics; either server may refuse these in its parser (4xx or a closed connection). */
export const PROTOCOL_FAMILY: Family = {
  name: 'malformed HTTP (request line, headers, framing)',
  arb: () => {
    const target = fc.oneof(
      fc.constantFrom<string | Buffer>(
        '//a:99999/',
        '//[/',
        '//user@host/api/auth/me',
        'http://x/healthz',
        'http://[::1/api',
        '/a b',
        '/..;/api/auth/me',
        '/%2e%2e/%2e%2e/etc/passwd',
        '/api/adv/campaigns#frag',
        '/imp?z=%',
        Buffer.from([0x2f, 0x61, 0x70, 0x69, 0x2f, 0xff, 0xfe, 0x80]),
        Buffer.from([0x2f, 0x69, 0x6d, 0x70, 0x3f, 0x7a, 0x3d, 0xc0, 0xaf]),
        Buffer.concat([Buffer.from('/w/'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('.js')]),
        `/api/${'a'.repeat(9_000)}`,
      ),
      pathSegment([]).map((s) => `/${s}`),
    );
    const head = fc.constantFrom<[string, string | Buffer][]>(
      [],
      [['x-bytes', Buffer.from([0xff, 0xfe, 0x01])]],
      [['x-utf8', Buffer.from('é€𝄞', 'utf8')]],
      [['referer', Buffer.from([0xc0, 0xaf])]],
      [['x-folded', 'a\r\n b']],
      [['x-no-value', '']],
      [['x-big', 'v'.repeat(20_000)]],
      Array.from({ length: 120 }, (_, i) => [`x-h${i}`, String(i)] as [string, string]),
      [
        ['content-length', '5'],
        ['content-length', '6'],
      ],
      [['content-length', '-1']],
      [['content-length', 'abc']],
      [
        ['transfer-encoding', 'chunked'],
        ['content-length', '3'],
      ],
      [['transfer-encoding', 'gzip, chunked']],
      [['transfer-encoding', 'identity']],
      [['expect', '100-continue']],
      [['expect', 'nonsense']],
      [['authorization', Buffer.from('Bearer \u00ff\u00fe', 'latin1')]],
      [['authorization', Buffer.from('Bearer é', 'utf8')]],
      [['cookie', Buffer.from([0x80, 0x81])]],
    );
    return (
      fc
        .tuple(
          fc.constantFrom('GET', 'POST', 'TRACE', 'CONNECT', 'PROPFIND', 'get', 'BREW', 'M'.repeat(40)),
          target,
          head,
          fc.option(fc.constantFrom(Buffer.from('{"a":1}'), Buffer.from('0\r\n\r\n'), Buffer.from('3\r\nabc\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n')), { freq: 2 }),
          fc.constantFrom<'engine' | 'admin'>('engine', 'admin'),
        )
        // uWS hands no route a target that is not a path (absolute or asterisk form): it answers nothing and
        // holds the connection to its idle timeout, as for a silent client (docs/security.md).
        // Nor does it answer a target with a space in it, a header holding a control character, or more than 100 headers.
        .filter(([, t, h, , via]) => via === 'admin' || (/^\/[^ ]*$/.test(t.toString('latin1')) && h.length < 90 && !h.some(([, v]) => hasControl(v))))
        .map(([method, t, headers, body, via]) => {
          const framed = headers.some(([k]) => k === 'content-length' || k === 'transfer-encoding');
          // A body that ends as its own headers say it does: a server waiting for the rest of a body is no finding.
          const chunked = headers.some(([k, v]) => k === 'transfer-encoding' && String(v).includes('chunked'));
          const whole = framed ? (chunked ? Buffer.from('0\r\n\r\n') : (body ?? Buffer.from('{"a":1}'))) : body;
          return request({
            family: 'malformed HTTP (request line, headers, framing)',
            via,
            method,
            target: t,
            headers,
            token: 'none',
            body: whole ?? undefined,
            framing: framed ? 'none' : 'length',
            protocolLevel: true,
          });
        })
    );
  },
};
