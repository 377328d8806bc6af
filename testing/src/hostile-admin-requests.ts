import fc from 'fast-check';
import type { Arbitrary } from 'fast-check';
import { REST_ROUTES } from '@adnet/admin/rest-routes';
import type { RestRoute } from '@adnet/admin/rest-routes';
import { signPostback } from './hostile-world.ts';
import {
  CONTENT_TYPES,
  encoded,
  extraHeaders,
  formBody,
  hostileString,
  jsonBody,
  multipartBody,
  mutatedQuery,
  oneIn,
  pathSegment,
  queryString,
} from './hostile-input.ts';
import { anyMethod, framing, request, withQuery } from './hostile-requests.ts';
import type { Family, HostileContext, TokenKind } from './hostile-requests.ts';

// ---------------------------------------------------------------- the admin's REST table

const USD = {
  name: 'Hostile',
  vertical: 'ecommerce',
  format: 'banner',
  bid_type: 'cpm',
  bid_usd: 1.2,
  daily_budget_usd: 100,
};
const LANDING = 'https://shop.example.com/p?c={click_id}';

/** A valid body for each JSON route: mutations of it get past the first field into the rest of the validation. */
function jsonSeed(procedure: string, ctx: HostileContext): Record<string, unknown> | undefined {
  const seeds: Record<string, Record<string, unknown>> = {
    'auth.register': { email: 'hostile-new@example.com', password: 'password-123', role: 'advertiser' },
    'auth.token': { email: 'nobody@example.com', password: 'password-123' },
    'auth.changePassword': { current_password: 'not-the-password', new_password: 'password-456' },
    'adv.campaigns.create': { ...USD, geo_include: ['us', 'de'], languages: ['en'] },
    'adv.campaigns.update': {
      name: 'Renamed',
      bid_usd: 1,
      daily_budget_usd: 10,
      geo_include: ['fr'],
      languages: ['fr'],
    },
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
    'adv.video.attach': {
      campaign_id: ctx.own.videoCampaignId,
      title: 'T',
      body: 'B',
      landing_url: LANDING,
      cta_text: 'Go',
    },
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
    'pub.payouts.setSettings': {
      method: 'wire',
      details: { account_holder: 'A', iban: 'DE89370400440532013000', swift: 'COBADEFF' },
      threshold_usd: 50,
    },
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
  path.startsWith('/api/adv')
    ? 'advertiser'
    : path.startsWith('/api/pub')
      ? 'publisher'
      : path.startsWith('/api/admin')
        ? 'admin'
        : 'advertiser';

/** Ids a path parameter may name: for an admin's token only the hostile accounts' own, so that no admin action changes the world. */
function idsFor(token: TokenKind, ctx: HostileContext): number[] {
  const o = ctx.own;
  const own = [o.advertiserId, o.campaignId, o.videoCampaignId, o.creativeId, o.siteId, o.zoneId, o.partnerId];
  if (token === 'admin') return own;
  return [
    ...own,
    ...ctx.world.campaignIds,
    ...ctx.worldCreativeIds,
    ctx.world.siteId,
    ...ctx.world.zoneIds,
    ctx.world.advertiser.id,
  ];
}

const tokenFor = (route: RestRoute): Arbitrary<TokenKind> => {
  const role = route.auth === false ? 'none' : roleOf(route.path);
  return fc.constantFrom<TokenKind>(
    role,
    role,
    role,
    role,
    'none',
    'garbage',
    'malformed',
    'advertiser',
    'publisher',
    'admin',
  );
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
      return typed(
        [...Array<string>(12).fill('application/json'), ...CONTENT_TYPES],
        jsonBody(jsonSeed(route.procedure, ctx)),
      );
    case 'multipart':
      return multipartBody({ title: 'Great offer', body: 'Buy now', landing_url: LANDING, cta_text: 'Shop' }).chain(
        ({ body, contentType }) =>
          fc
            .constantFrom(
              contentType,
              contentType,
              contentType,
              'application/json',
              'multipart/mixed; boundary=x',
              'multipart/form-data',
            )
            .map((type) => ({
              body,
              headers: [['content-type', type]] as [string, string][],
            })),
      );
    case 'form':
      return typed(
        ['application/x-www-form-urlencoded', 'text/plain', 'application/json'],
        formBody({ click_id: ctx.world.clickIds[1] ?? '', payout: '100', status: 'approved', txid: 't' }).map((s) =>
          Buffer.from(s, 'latin1'),
        ),
      );
    case 'query':
    case 'none':
      return fc.oneof(
        { weight: 3, arbitrary: fc.constant<RestBody>({ headers: [] }) },
        { weight: 1, arbitrary: typed(CONTENT_TYPES, jsonBody(undefined)) },
      );
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
                p === '{month}'
                  ? fc.oneof(fc.constantFrom('2026-11', '2026-02', '1970-01', '9999-12'), pathSegment([]))
                  : pathSegment(ids),
              ),
            ),
            route.input === 'query'
              ? fc.oneof(
                  {
                    weight: 3,
                    arbitrary: mutatedQuery(querySeed(route.procedure, ctx), queryKnown(route.procedure, ctx)),
                  },
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
    const field = (known: readonly string[]) =>
      fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...known) }, hostileString);
    return fc
      .record({
        click_id: field([
          ...ctx.ownClickIds,
          ...ctx.ownClickIds,
          ...ctx.world.clickIds,
          '00000000-0000-4000-8000-000000000000',
          'not-a-uuid',
        ]),
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
        const sig =
          r.signing === 'base64'
            ? Buffer.from(hex, 'hex').toString('base64')
            : r.signing === 'forged'
              ? hex.replace(/^./, 'f')
              : hex;
        const auth: Record<string, string> = r.signing === 'none' ? {} : { secret: key, sig };
        const fields = new URLSearchParams({
          ...f,
          ...(r.carrier === 'headers' ? {} : auth),
          ...(r.padding ? { pad: 'p'.repeat(r.padding) } : {}),
        }).toString();
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
          headers: [
            ...(get ? [] : ([['content-type', 'application/x-www-form-urlencoded']] as [string, string][])),
            ...headers,
            ...r.more,
          ],
          token: 'none',
          body: get ? undefined : Buffer.from(fields, 'latin1'),
        });
      });
  },
};
