import { ADVERTISER_STATS_DIMENSIONS, PUBLISHER_STATS_DIMENSIONS } from '@adnet/schemas/stats';

/**
 * The spec's REST paths, each a thin door onto one tRPC procedure. `input`
 * says where the procedure's input comes from; path parameters are merged in.
 * `form` is a tracker's fields: the query of a GET, the url-encoded body of a POST.
 */
export interface RestRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  procedure: string;
  input: 'none' | 'json' | 'query' | 'multipart' | 'form';
  /** Form fields a request header may carry instead (it wins): headers stay out of request logs. */
  headerFields?: Readonly<Record<string, string>>;
  /** Success status; 200 unless stated. */
  status?: number;
  summary: string;
  /** False for the routes that take no bearer token. */
  auth?: boolean;
  /** Answers in another format than JSON when the result carries it (CSV export). */
  render?: (body: unknown) => { type: string; text: string } | undefined;
  /** Calls a paid outside provider: may answer 402 (balance) and 502 (provider failed). */
  paid?: boolean;
  /** Error answers of this route beyond the ones every route documents, for OpenAPI. */
  answers?: Readonly<Record<number, string>>;
  /** `Accept: text/csv` asks for `format=csv` as the query parameter does. */
  csvByAccept?: boolean;
  /** The other type `render` answers in, for OpenAPI. */
  rendersAs?: 'text/html' | 'text/csv';
  /** Path parameters that are not positive integer ids, with their OpenAPI schema. */
  textParams?: Readonly<Record<string, Record<string, unknown>>>;
}

const postbackIn = {
  path: '/postback/in',
  input: 'form',
  auth: false,
  headerFields: { secret: 'x-service-secret', sig: 'x-service-signature' },
  answers: {
    401: 'Missing or unknown secret, or a wrong signature',
    403: "Another advertiser's click",
    404: 'Unknown click_id',
    413: 'Body over 16 KiB',
    503: 'The click may still be replayed from a Redis outage: try again after Retry-After',
  },
} as const;

/** `format=csv` on statistics: the procedure adds the CSV text to its result. */
const csvWhenAsked = (body: unknown) => {
  const csv = (body as { csv?: unknown }).csv;
  return typeof csv === 'string' ? { type: 'text/csv; charset=utf-8', text: csv } : undefined;
};

/** A receipt: the procedure's HTML as the page itself. */
const htmlPage = (body: unknown) => {
  const html = (body as { html?: unknown }).html;
  return typeof html === 'string' ? { type: 'text/html; charset=utf-8', text: html } : undefined;
};
const MONTH_PARAM = { month: { type: 'string', pattern: '^\\d{4}-(0[1-9]|1[0-2])$', example: '2026-11' } };

export const REST_ROUTES: readonly RestRoute[] = [
  {
    method: 'POST',
    path: '/api/auth/register',
    procedure: 'auth.register',
    input: 'json',
    status: 202,
    auth: false,
    summary: 'Sign up as an advertiser or publisher; the same answer for a taken email, then sign in',
  },
  {
    method: 'POST',
    path: '/api/auth/token',
    procedure: 'auth.token',
    input: 'json',
    auth: false,
    summary: 'Exchange email and password for a bearer token',
  },
  {
    method: 'POST',
    path: '/api/auth/logout',
    procedure: 'auth.logout',
    input: 'none',
    summary: 'Revoke the token used for this request',
  },
  { method: 'GET', path: '/api/auth/me', procedure: 'auth.me', input: 'none', summary: 'The account behind the token' },
  {
    method: 'POST',
    path: '/api/auth/password',
    procedure: 'auth.changePassword',
    input: 'json',
    summary: 'Change the password (needs the current one); every other token of the account is revoked',
  },
  {
    method: 'POST',
    path: '/api/auth/logout-all',
    procedure: 'auth.logoutAll',
    input: 'none',
    summary: 'Revoke every token of the account, this one included',
  },

  {
    method: 'GET',
    path: '/api/adv/campaigns',
    procedure: 'adv.campaigns.list',
    input: 'none',
    summary: 'List own campaigns',
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns',
    procedure: 'adv.campaigns.create',
    input: 'json',
    status: 201,
    summary: 'Create a campaign (status draft)',
  },
  {
    method: 'GET',
    path: '/api/adv/campaigns/{id}',
    procedure: 'adv.campaigns.get',
    input: 'none',
    summary: 'Get one campaign',
  },
  {
    method: 'PATCH',
    path: '/api/adv/campaigns/{id}',
    procedure: 'adv.campaigns.update',
    input: 'json',
    summary:
      'Change name, vertical, bid, budget, targeting, audiences, source list or bid adjustments (each list replaced whole)',
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/activate',
    procedure: 'adv.campaigns.activate',
    input: 'none',
    summary: 'draft|paused -> active',
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/pause',
    procedure: 'adv.campaigns.pause',
    input: 'none',
    summary: 'active -> paused',
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/archive',
    procedure: 'adv.campaigns.archive',
    input: 'none',
    summary: 'draft|active|paused -> archived (final)',
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/duplicate',
    procedure: 'adv.campaigns.duplicate',
    input: 'none',
    status: 201,
    summary: 'Copy a campaign as a draft with its live creatives',
  },
  {
    method: 'GET',
    path: '/api/adv/campaigns/{id}/zone-bids',
    procedure: 'adv.campaigns.zoneBids',
    input: 'none',
    summary: "Target CPA: each zone's state (testing, excluded, optimised), bid, spend, conversions and eCPA, and why",
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/sources/add',
    procedure: 'adv.campaigns.sources.add',
    input: 'json',
    summary:
      "Add zones (subids) and sites (ids) to the campaign's source list; unknown ones are kept and named in `warnings`",
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/sources/remove',
    procedure: 'adv.campaigns.sources.remove',
    input: 'json',
    summary: "Remove zones and sites from the campaign's source list (entries it does not hold are ignored)",
  },
  {
    method: 'GET',
    path: '/api/adv/sources/zones',
    procedure: 'adv.campaigns.sources.zones',
    input: 'query',
    summary: 'The subids (and sites) of zones named by id, as statistics name them: `ids=3,17` (at most 1000)',
  },
  // Automated rules (docs/rules.md).
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/rules',
    procedure: 'adv.rules.create',
    input: 'json',
    status: 201,
    summary:
      'Add an automated rule: IF every condition holds for a target (zone, site, source, creative, country, os, browser) over a window THEN act; at most 10 a campaign',
    answers: { 409: 'The campaign has 10 rules already, or is archived' },
  },
  {
    method: 'GET',
    path: '/api/adv/campaigns/{id}/rules',
    procedure: 'adv.rules.list',
    input: 'none',
    summary: "The campaign's automated rules",
  },
  {
    method: 'GET',
    path: '/api/adv/campaigns/{id}/rules/{rule_id}',
    procedure: 'adv.rules.get',
    input: 'none',
    summary: 'One automated rule',
  },
  {
    method: 'PATCH',
    path: '/api/adv/campaigns/{id}/rules/{rule_id}',
    procedure: 'adv.rules.update',
    input: 'json',
    summary: 'Change any field of a rule (enabled: false stops it); the rule as it would then be is checked whole',
  },
  {
    method: 'DELETE',
    path: '/api/adv/campaigns/{id}/rules/{rule_id}',
    procedure: 'adv.rules.delete',
    input: 'none',
    summary: 'Delete a rule; what it did stays in the rule log',
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/rules/{rule_id}/preview',
    procedure: 'adv.rules.preview',
    input: 'none',
    summary: 'What the rule would do now, on its window of statistics, without doing it',
  },
  {
    method: 'GET',
    path: '/api/adv/campaigns/{id}/rule-log',
    procedure: 'adv.rules.log',
    input: 'none',
    summary: "Every action of the campaign's rules, newest first: time, rule, target and the metric values behind it",
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/rule-log/{entry_id}/undo',
    procedure: 'adv.rules.undo',
    input: 'none',
    summary: 'Revert exactly what one logged action changed (once)',
    answers: { 409: 'Undone already, nothing to undo, or the setting changed since' },
  },
  {
    method: 'POST',
    path: '/api/adv/audiences',
    procedure: 'adv.audiences.create',
    input: 'json',
    status: 201,
    summary:
      'Create an audience: visitors of own pages (`pixel`, through its `pixel_url`) or who saw, clicked or converted on named campaigns',
    answers: { 403: "`campaign_ids` names another advertiser's campaign", 409: 'At most 200 audiences' },
  },
  {
    method: 'GET',
    path: '/api/adv/audiences',
    procedure: 'adv.audiences.list',
    input: 'none',
    summary: 'List own audiences',
  },
  {
    method: 'GET',
    path: '/api/adv/audiences/{id}',
    procedure: 'adv.audiences.get',
    input: 'none',
    summary: 'Get one audience',
  },
  {
    method: 'DELETE',
    path: '/api/adv/audiences/{id}',
    procedure: 'adv.audiences.delete',
    input: 'none',
    summary: 'Delete an audience no campaign includes or excludes',
    answers: { 409: 'A campaign includes or excludes it' },
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{campaign_id}/creatives',
    procedure: 'adv.creatives.create',
    input: 'multipart',
    status: 201,
    summary: 'Upload a creative (multipart/form-data); it waits for moderation',
  },
  {
    method: 'GET',
    path: '/api/adv/campaigns/{campaign_id}/creatives',
    procedure: 'adv.creatives.list',
    input: 'none',
    summary: "List a campaign's creatives with their moderation status",
  },
  {
    method: 'GET',
    path: '/api/adv/creatives/{id}',
    procedure: 'adv.creatives.get',
    input: 'none',
    summary: 'Get one creative',
  },
  {
    method: 'PATCH',
    path: '/api/adv/creatives/{id}',
    procedure: 'adv.creatives.update',
    input: 'json',
    summary: "Edit a creative's text, links or weight; new content goes back to moderation",
  },
  {
    method: 'POST',
    path: '/api/adv/creatives/{id}/pause',
    procedure: 'adv.creatives.pause',
    input: 'none',
    summary: 'Stop serving an approved creative',
  },
  {
    method: 'POST',
    path: '/api/adv/creatives/{id}/resume',
    procedure: 'adv.creatives.resume',
    input: 'none',
    summary: 'Serve a paused creative again',
  },
  {
    method: 'POST',
    path: '/api/adv/creatives/{id}/archive',
    procedure: 'adv.creatives.archive',
    input: 'none',
    summary: 'Retire a creative for good',
  },
  {
    method: 'POST',
    path: '/api/adv/campaigns/{id}/ai-generate',
    paid: true,
    procedure: 'adv.ai.generate',
    input: 'json',
    summary: '8 ad-copy variants and 4 image prompts for the campaign (priced per token; 1 per 30 s)',
  },
  {
    method: 'POST',
    path: '/api/adv/video/generate',
    paid: true,
    procedure: 'adv.video.generate',
    input: 'json',
    summary: 'Start an avatar video job (charged now, refunded if it fails; 1 per 5 s)',
  },
  {
    method: 'GET',
    path: '/api/adv/video/status/{job_id}',
    procedure: 'adv.video.status',
    input: 'none',
    summary: 'Status of a video job: processing, completed (video_url, duration_sec) or failed (reason)',
  },
  {
    method: 'POST',
    path: '/api/adv/video/{job_id}/attach',
    procedure: 'adv.video.attach',
    input: 'json',
    status: 201,
    summary: 'Add a completed video as a creative of a video or floating_video campaign',
  },
  {
    method: 'GET',
    path: '/api/adv/balance',
    procedure: 'adv.balance.get',
    input: 'query',
    summary: 'Balance and ledger, newest entry first',
  },
  {
    method: 'GET',
    path: '/api/adv/conversions',
    procedure: 'adv.conversions.list',
    input: 'none',
    summary: 'Conversions with their outgoing postback attempts, newest first',
  },
  {
    method: 'GET',
    path: '/api/adv/stats',
    procedure: 'adv.stats.get',
    input: 'query',
    render: csvWhenAsked,
    // From the list the query is checked against, so a new dimension cannot be left out here.
    summary: `Statistics by any of ${ADVERTISER_STATS_DIMENSIONS.join(', ')}`,
  },
  {
    method: 'POST',
    path: '/api/adv/estimate',
    procedure: 'adv.estimate.get',
    input: 'json',
    summary:
      'Traffic estimate and bid guidance for a targeting and bid, from the last 7 days of recorded requests and winning prices',
  },
  {
    method: 'GET',
    path: '/api/adv/profile',
    procedure: 'adv.profile.get',
    input: 'none',
    summary: 'Profile with postback secret and URL pattern',
  },
  {
    method: 'PATCH',
    path: '/api/adv/profile',
    procedure: 'adv.profile.update',
    input: 'json',
    summary: 'Set the outgoing postback URL pattern',
  },
  {
    method: 'POST',
    path: '/api/adv/profile/postback-secret/rotate',
    procedure: 'adv.profile.rotatePostbackSecret',
    input: 'none',
    summary: 'Replace the postback secret',
  },
  {
    method: 'POST',
    path: '/api/adv/profile/postback-test',
    procedure: 'adv.profile.testPostback',
    input: 'none',
    summary: 'Call the postback URL pattern once with sample values and report the answer',
  },

  {
    method: 'POST',
    path: '/api/pub/sites',
    procedure: 'pub.sites.create',
    input: 'json',
    status: 201,
    summary: 'Register a site (status draft) and get its verification code',
  },
  { method: 'GET', path: '/api/pub/sites', procedure: 'pub.sites.list', input: 'none', summary: 'List own sites' },
  { method: 'GET', path: '/api/pub/sites/{id}', procedure: 'pub.sites.get', input: 'none', summary: 'Get one site' },
  {
    method: 'PATCH',
    path: '/api/pub/sites/{id}',
    procedure: 'pub.sites.update',
    input: 'json',
    summary: "Change category, language, traffic estimate or the zones' default controls",
  },
  {
    method: 'POST',
    path: '/api/pub/sites/{id}/verify',
    procedure: 'pub.sites.verify',
    input: 'none',
    summary: 'Look for the verification code on the site (200, or 422 {ok: false, error})',
  },
  {
    method: 'POST',
    path: '/api/pub/sites/{id}/ads-txt-check',
    procedure: 'pub.sites.checkAdsTxt',
    input: 'none',
    summary: "Look for the site's ads.txt line in its /ads.txt and keep the result (found, missing, unreachable)",
  },
  {
    method: 'GET',
    path: '/api/pub/seller-settings',
    procedure: 'pub.seller.get',
    input: 'none',
    summary: 'Seller id, ads.txt line and whether sellers.json names the publisher',
  },
  {
    method: 'PUT',
    path: '/api/pub/seller-settings',
    procedure: 'pub.seller.update',
    input: 'json',
    summary: 'Ask sellers.json to list the publisher as confidential (no name or domain), or to name it again',
  },
  {
    method: 'POST',
    path: '/api/pub/zones',
    procedure: 'pub.zones.create',
    input: 'json',
    status: 201,
    summary: 'Create a zone with its widget URL (and VAST URL for video formats)',
  },
  { method: 'GET', path: '/api/pub/zones', procedure: 'pub.zones.list', input: 'none', summary: 'List own zones' },
  { method: 'GET', path: '/api/pub/zones/{id}', procedure: 'pub.zones.get', input: 'none', summary: 'Get one zone' },
  {
    method: 'PATCH',
    path: '/api/pub/zones/{id}',
    procedure: 'pub.zones.update',
    input: 'json',
    summary: "Change a zone's name, format fields or controls",
  },
  {
    method: 'POST',
    path: '/api/pub/zones/{id}/pause',
    procedure: 'pub.zones.pause',
    input: 'none',
    summary: 'Stop serving a zone',
  },
  {
    method: 'POST',
    path: '/api/pub/zones/{id}/resume',
    procedure: 'pub.zones.resume',
    input: 'none',
    summary: 'Serve a paused zone again',
  },
  {
    method: 'POST',
    path: '/api/pub/zones/{id}/preview',
    procedure: 'pub.zones.preview',
    input: 'none',
    summary: "A 15-minute token for the zone's live preview, which counts and charges nothing",
  },
  {
    method: 'GET',
    path: '/api/pub/stats',
    procedure: 'pub.stats.get',
    input: 'query',
    summary: `Impressions, clicks and earnings by any of ${PUBLISHER_STATS_DIMENSIONS.join(', ')}`,
  },
  {
    method: 'GET',
    path: '/api/pub/stats/uncounted',
    procedure: 'pub.stats.uncounted',
    input: 'query',
    summary:
      'Traffic on your zones that was not counted (invalid traffic, late or mismatched beacons, invalid clicks), by reason',
  },
  {
    method: 'GET',
    path: '/api/admin/moderation/sites',
    procedure: 'admin.siteQueue',
    input: 'none',
    summary: 'Sites waiting for review, oldest first',
  },
  {
    method: 'POST',
    path: '/api/admin/sites/{id}/approve',
    procedure: 'admin.approveSite',
    input: 'none',
    summary: 'Approve a verified site: its zones serve',
  },
  {
    method: 'POST',
    path: '/api/admin/sites/{id}/reject',
    procedure: 'admin.rejectSite',
    input: 'json',
    summary: 'Reject a verified site with a reason',
  },
  {
    method: 'GET',
    path: '/api/admin/moderation/creatives',
    procedure: 'admin.moderationQueue',
    input: 'query',
    summary: 'Creatives waiting for review, oldest first',
  },
  {
    method: 'POST',
    path: '/api/admin/creatives/{id}/approve',
    procedure: 'admin.approveCreative',
    input: 'none',
    summary: 'Approve a pending creative',
  },
  {
    method: 'POST',
    path: '/api/admin/creatives/{id}/reject',
    procedure: 'admin.rejectCreative',
    input: 'json',
    summary: 'Reject a pending creative with a reason',
  },
  {
    method: 'GET',
    path: '/api/admin/advertisers',
    procedure: 'admin.listAdvertisers',
    input: 'query',
    summary: 'Advertisers with their balances',
  },
  {
    method: 'GET',
    path: '/api/admin/campaigns',
    procedure: 'admin.listCampaigns',
    input: 'query',
    summary: "Campaigns by name: one advertiser's or all",
  },
  {
    method: 'GET',
    path: '/api/stats/freshness',
    procedure: 'stats.freshness',
    input: 'none',
    summary: 'How far the statistics lag the event stream (any signed-in account): current, behind or unknown',
  },
  {
    method: 'GET',
    path: '/api/admin/stats',
    procedure: 'admin.stats',
    input: 'query',
    render: csvWhenAsked,
    summary: 'Statistics over every advertiser (or one: advertiser_id)',
  },
  {
    method: 'POST',
    path: '/api/admin/spend/rebuild',
    procedure: 'admin.rebuildSpend',
    input: 'json',
    summary: "Rebuild a day's campaign spend counters from the event store (after a Redis loss)",
  },
  {
    method: 'GET',
    path: '/api/admin/partners',
    procedure: 'admin.listPartners',
    input: 'none',
    summary: 'OpenRTB partners',
  },
  {
    method: 'POST',
    path: '/api/admin/partners',
    procedure: 'admin.createPartner',
    input: 'json',
    status: 201,
    summary: 'Admit an OpenRTB partner by IP allow-list',
  },
  {
    method: 'PATCH',
    path: '/api/admin/partners/{id}',
    procedure: 'admin.updatePartner',
    input: 'json',
    summary: "Change a partner's name, allow-list or QPS limit",
  },
  {
    method: 'POST',
    path: '/api/admin/partners/{id}/disable',
    procedure: 'admin.disablePartner',
    input: 'none',
    summary: 'Stop accepting bid requests from a partner',
  },
  {
    method: 'POST',
    path: '/api/admin/partners/{id}/enable',
    procedure: 'admin.enablePartner',
    input: 'none',
    summary: 'Accept bid requests from a partner again',
  },
  // Private-marketplace deals (docs/openrtb.md, deals); `{id}` is the deal id partners send.
  {
    method: 'GET',
    path: '/api/admin/deals',
    procedure: 'admin.listDeals',
    input: 'none',
    summary: 'Private-marketplace deals',
  },
  {
    method: 'POST',
    path: '/api/admin/deals',
    procedure: 'admin.createDeal',
    input: 'json',
    status: 201,
    summary: 'Create a deal: which partners offer it, which campaigns bid on it, its floor',
  },
  { method: 'GET', path: '/api/admin/deals/{id}', procedure: 'admin.getDeal', input: 'none', summary: 'One deal' },
  {
    method: 'PATCH',
    path: '/api/admin/deals/{id}',
    procedure: 'admin.updateDeal',
    input: 'json',
    summary: "Change a deal's floor, partners or campaigns",
  },
  {
    method: 'DELETE',
    path: '/api/admin/deals/{id}',
    procedure: 'admin.deleteDeal',
    input: 'none',
    summary: 'Delete a deal: its id no longer matches bid requests',
  },
  {
    method: 'GET',
    path: '/api/admin/demand-partners',
    procedure: 'admin.listDemandPartners',
    input: 'none',
    summary: 'Demand partners (DSPs) with their health',
  },
  {
    method: 'POST',
    path: '/api/admin/demand-partners',
    procedure: 'admin.createDemandPartner',
    input: 'json',
    status: 201,
    summary: "Add a demand partner our zones' impressions are auctioned to",
  },
  {
    method: 'PATCH',
    path: '/api/admin/demand-partners/{id}',
    procedure: 'admin.updateDemandPartner',
    input: 'json',
    summary: "Change a demand partner's endpoint, limits, formats or countries",
  },
  {
    method: 'POST',
    path: '/api/admin/demand-partners/{id}/disable',
    procedure: 'admin.disableDemandPartner',
    input: 'none',
    summary: 'Stop sending bid requests to a demand partner',
  },
  {
    method: 'POST',
    path: '/api/admin/demand-partners/{id}/enable',
    procedure: 'admin.enableDemandPartner',
    input: 'none',
    summary: 'Send bid requests to a demand partner again',
  },
  {
    method: 'POST',
    path: '/api/admin/advertisers/{id}/credit',
    procedure: 'admin.creditAdvertiser',
    input: 'json',
    summary: "Credit an advertiser's balance",
  },

  // ---- billing (docs/billing.md)
  {
    method: 'POST',
    path: '/api/adv/deposits',
    procedure: 'adv.deposits.create',
    input: 'json',
    status: 201,
    summary: 'Start a deposit: answers its checkout_url, where the advertiser pays; the balance is credited once paid',
    answers: { 502: 'The payment provider failed; nothing was created' },
  },
  {
    method: 'GET',
    path: '/api/adv/deposits',
    procedure: 'adv.deposits.list',
    input: 'query',
    summary: 'Deposits, newest first, with their status',
  },
  {
    method: 'GET',
    path: '/api/adv/deposits/{id}',
    procedure: 'adv.deposits.get',
    input: 'none',
    summary: 'One deposit',
  },
  {
    method: 'GET',
    path: '/api/adv/deposits/{id}/receipt',
    procedure: 'adv.deposits.receipt',
    input: 'none',
    render: htmlPage,
    rendersAs: 'text/html',
    summary: 'The numbered receipt of a paid deposit, as an HTML page (409 while not paid)',
  },
  {
    method: 'GET',
    path: '/api/adv/statements/{month}',
    procedure: 'adv.statements.get',
    input: 'query',
    render: csvWhenAsked,
    csvByAccept: true,
    rendersAs: 'text/csv',
    textParams: MONTH_PARAM,
    summary:
      'Spend per campaign for a UTC month (YYYY-MM), with deposits and refunds; CSV with format=csv or Accept: text/csv',
  },
  {
    method: 'GET',
    path: '/api/pub/balance',
    procedure: 'pub.payouts.balance',
    input: 'query',
    summary: 'Balance of closed earnings, payout settings and the ledger',
  },
  {
    method: 'PUT',
    path: '/api/pub/payout-settings',
    procedure: 'pub.payouts.setSettings',
    input: 'json',
    summary:
      'Payout method (paypal, wire, crypto), its details and the threshold; details are recorded, nothing is transferred',
  },
  {
    method: 'GET',
    path: '/api/pub/payouts',
    procedure: 'pub.payouts.list',
    input: 'query',
    summary: 'Payouts, newest first',
  },
  {
    method: 'GET',
    path: '/api/pub/statements/{month}',
    procedure: 'pub.payouts.statement',
    input: 'query',
    render: csvWhenAsked,
    csvByAccept: true,
    rendersAs: 'text/csv',
    textParams: MONTH_PARAM,
    summary: 'Earnings, adjustments and payouts for a UTC month (YYYY-MM) with opening and closing balance; CSV too',
  },
  {
    method: 'GET',
    path: '/api/admin/payouts',
    procedure: 'admin.listPayouts',
    input: 'query',
    summary: 'Payouts, newest first; status=due for the ones to pay',
  },
  {
    method: 'POST',
    path: '/api/admin/payouts/{id}/paid',
    procedure: 'admin.payoutPaid',
    input: 'json',
    summary: 'Mark a due or held payout paid, with the transfer reference',
  },
  {
    method: 'POST',
    path: '/api/admin/payouts/{id}/hold',
    procedure: 'admin.payoutHold',
    input: 'json',
    summary: 'Hold a due payout for review, with a reason',
  },
  {
    method: 'POST',
    path: '/api/admin/payouts/close',
    procedure: 'admin.closePayouts',
    input: 'none',
    summary: "Run the daily close now: closed days' earnings into balances, adjustments, due payouts (idempotent)",
  },
  {
    method: 'GET',
    path: '/api/admin/deposits',
    procedure: 'admin.listDeposits',
    input: 'query',
    summary: "An advertiser's deposits (advertiser_id), newest first",
  },
  {
    method: 'POST',
    path: '/api/admin/deposits/{id}/refund',
    procedure: 'admin.refundDeposit',
    input: 'json',
    summary: 'Refund a paid deposit at the provider and take it off the balance (which may go below zero)',
    answers: { 502: 'The payment provider refused the refund; nothing changed' },
  },

  {
    method: 'POST',
    ...postbackIn,
    procedure: 'conversions.receive',
    summary: "A tracker reports a conversion as form fields, signed with the advertiser's postback secret",
  },
  {
    method: 'GET',
    ...postbackIn,
    procedure: 'conversions.receiveGet',
    summary: 'The same report as a query string, for trackers that can only call a URL',
  },

  // ---- email verification, password reset, notices, API keys (issue 20, accounts)
  {
    method: 'POST',
    path: '/api/auth/verify-email',
    procedure: 'auth.verifyEmail',
    input: 'json',
    auth: false,
    summary: "Confirm the account's email with the token from the verification link",
  },
  {
    method: 'POST',
    path: '/api/auth/verify-email/resend',
    procedure: 'auth.resendVerification',
    input: 'none',
    summary: 'Send the verification email again (at most once per 10 minutes)',
  },
  {
    method: 'POST',
    path: '/api/auth/password-reset',
    procedure: 'auth.passwordReset',
    input: 'json',
    status: 202,
    auth: false,
    summary: 'Email a password-reset link; the same answer whether or not the email has an account',
  },
  {
    method: 'POST',
    path: '/api/auth/password-reset/confirm',
    procedure: 'auth.passwordResetConfirm',
    input: 'json',
    auth: false,
    summary:
      "Set a new password with the reset link's token (single use, expiring); every session and API key is revoked",
  },
  {
    method: 'GET',
    path: '/api/adv/notifications',
    procedure: 'adv.notifications.get',
    input: 'none',
    summary: 'Notice settings: the low-balance threshold',
  },
  {
    method: 'PUT',
    path: '/api/adv/notifications',
    procedure: 'adv.notifications.set',
    input: 'json',
    summary: 'Set the low-balance threshold (null: no notice); emailed once each time the balance falls below it',
  },
  {
    method: 'POST',
    path: '/api/keys',
    procedure: 'keys.create',
    input: 'json',
    status: 201,
    summary: 'Create an API key with scopes; the key is in this answer only',
    answers: { 409: 'The account holds 50 keys already' },
  },
  {
    method: 'GET',
    path: '/api/keys',
    procedure: 'keys.list',
    input: 'none',
    summary: "The account's API keys (never the keys themselves)",
  },
  {
    method: 'DELETE',
    path: '/api/keys/{id}',
    procedure: 'keys.revoke',
    input: 'none',
    summary: 'Revoke an API key at once',
  },
];

export interface CompiledRoute extends RestRoute {
  segments: readonly string[];
}

export const compileRoutes = (routes: readonly RestRoute[]): CompiledRoute[] =>
  routes.map((r) => ({ ...r, segments: r.path.split('/').filter(Boolean) }));

/** A path parameter as sent: percent-decoded (a deal id may hold `/` or `%`), else as it is when it is not valid percent-encoding. */
function decodeSegment(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** Path parameters when `segments` match `parts`, else undefined. */
export function matchPath(route: CompiledRoute, parts: readonly string[]): Record<string, string> | undefined {
  if (route.segments.length !== parts.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < parts.length; i++) {
    const seg = route.segments[i] as string;
    const part = parts[i] as string;
    if (seg.startsWith('{')) params[seg.slice(1, -1)] = decodeSegment(part);
    else if (seg !== part) return undefined;
  }
  return params;
}
