import { ZONE_NOT_SERVING_TEXT, zoneDelivery } from '@adnet/schemas/zone-delivery';
import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { trafficChart } from '../chart.ts';
import { dayIn, shiftDay } from '../date-range.ts';
import { allClearText, deliveryText, needsAttention } from '../delivery-text.ts';
import { moderationWait } from '../moderation-wait.ts';
import { badge, h, table } from '../dom.ts';
import { count, ctrOf, ecpmCents, money, moneyNano, percent, spend } from '../format.ts';
import type { PageContext } from '../router.ts';
import { BASE } from '../router.ts';
import { daysOf } from '../series.ts';
import { daysLeftText } from '../spend-pace.ts';
import { freshnessBox, showFreshness } from '../stats-freshness.ts';

type Row = Record<string, string | number | null | undefined>;
const TREND_DAYS = 14;

/** Today and the 13 days before it, in the browser's time zone (the API's days are in `tz`). */
function range(): { from: string; to: string; today: string; yesterday: string; tz: string } {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const today = dayIn(Date.now(), tz);
  return { from: shiftDay(today, 1 - TREND_DAYS), to: today, today, yesterday: shiftDay(today, -1), tz };
}

const sum = (rows: Row[], k: string) => rows.reduce((a, r) => a + Number(r[k] ?? 0), 0);

/** A figure of the day rows for today and for yesterday. */
function todayAndYesterday(
  rows: Row[],
  r: { today: string; yesterday: string },
): (k: string) => readonly [number, number] {
  const [t, y] = [rows.filter((x) => x.date === r.today), rows.filter((x) => x.date === r.yesterday)];
  return (k) => [sum(t, k), sum(y, k)];
}

/** Impressions, clicks and CTR, each against yesterday's. */
function trafficTiles(figure: (k: string) => readonly [number, number], withCtr = true): HTMLElement[] {
  const [imp, impY] = figure('impressions');
  const [clk, clkY] = figure('clicks');
  return [
    tile('Impressions', count(imp), count(impY)),
    tile('Clicks', count(clk), count(clkY)),
    ...(withCtr ? [tile('CTR', percent(ctrOf(clk, imp)), percent(ctrOf(clkY, impY)))] : []),
  ];
}

/** One figure with yesterday's beside it, so a change is seen without a chart; or a note instead. */
function tile(label: string, value: string, before?: string, note?: string): HTMLElement {
  return h(
    'div',
    { class: 'tile' },
    h('span', { class: 'tile-label' }, label),
    h('strong', { class: 'tile-value' }, value),
    before ? h('small', {}, `yesterday ${before}`) : null,
    note ? h('small', {}, note) : null,
  );
}

type Campaigns = Outputs['adv']['campaigns']['list']['campaigns'];
type Creative = Outputs['adv']['creatives']['list']['creatives'][number];

/** Creatives of the open campaigns, each with its campaign (creatives are listed per campaign). */
async function creativesToWatch(campaigns: Campaigns): Promise<{ campaign: Campaigns[number]; creative: Creative }[]> {
  const lists = await Promise.all(campaigns.map((c) => api.adv.creatives.list.query({ campaign_id: c.id })));
  return lists.flatMap((l, i) =>
    l.creatives.map((creative) => ({ campaign: campaigns[i] as Campaigns[number], creative })),
  );
}

function trend(days: string[], rows: Row[]): HTMLElement {
  return trafficChart(days, rows, `Impressions and clicks, last ${TREND_DAYS} days`);
}

function attention(items: HTMLElement[], allClear: string): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'attention' },
    h('h2', { id: 'attention' }, 'Needs attention'),
    items.length ? h('ul', { class: 'attention' }, items) : h('p', {}, allClear),
  );
}

/** The advertiser's home: today against yesterday, the two-week trend, and what keeps a campaign from serving. */
async function advertiserOverview(ctx: PageContext): Promise<void> {
  const r = range();
  const [stats, balance, { campaigns }, wait] = await Promise.all([
    api.adv.stats.get.query({ from: r.from, to: r.to, group_by: 'day', tz: r.tz }),
    api.adv.balance.get.query({ limit: 1 }),
    api.adv.campaigns.list.query(),
    moderationWait(),
  ]);
  const rows = stats.rows as Row[];
  const figures = todayAndYesterday(rows, r);
  const [spent, spentY] = figures('spent_nano');
  const [conv, convY] = figures('conversions');
  const stuck = needsAttention(campaigns);
  const creatives = await creativesToWatch(campaigns.filter((c) => c.status !== 'archived'));
  const waiting = creatives.filter((x) => x.creative.status === 'pending_moderation');
  const rejected = creatives.filter((x) => x.creative.status === 'rejected');
  const stale = freshnessBox();
  void showFreshness(stale);
  ctx.main.replaceChildren(
    h('h1', {}, 'Overview'),
    stale,
    campaigns.length === 0
      ? h(
          'section',
          { class: 'empty' },
          h('h2', {}, 'Start your first campaign'),
          h(
            'ol',
            {},
            h(
              'li',
              {},
              h('a', { href: `${BASE}/campaigns/new` }, 'Create a campaign'),
              ': name, format, bid and daily budget.',
            ),
            h('li', {}, `Upload a creative. Our moderators review it, ${wait} now; you are told by email.`),
            h('li', {}, 'Add funds to your balance. Campaigns spend only what the balance holds.'),
            h(
              'li',
              {},
              'Activate the campaign. It serves as soon as a creative is approved and the balance is above zero.',
            ),
          ),
        )
      : '',
    h(
      'div',
      { class: 'tiles', role: 'group', 'aria-label': 'Today' },
      tile('Spend today', spend(spent), spend(spentY)),
      ...trafficTiles(figures),
      tile('Conversions', count(conv), count(convY)),
      tile(
        'Balance',
        money(balance.balance_cents),
        undefined,
        daysLeftText(balance.balance_cents, daysOf(r.from, r.to).slice(-7), rows),
      ),
    ),
    trend(daysOf(r.from, r.to), rows),
    attention(
      [
        ...(balance.balance_cents <= 0 && campaigns.length
          ? [
              h(
                'li',
                {},
                'Your balance is empty: no campaign can win an auction. ',
                h('a', { href: `${BASE}/billing#add-funds` }, 'Add funds'),
              ),
            ]
          : []),
        ...stuck.map((c) =>
          h('li', {}, h('a', { href: `${BASE}/campaigns/${c.id}` }, c.name), `: ${deliveryText(c.delivery)}`),
        ),
        ...rejected.map(({ campaign, creative }) =>
          h(
            'li',
            {},
            `Creative “${creative.title}” of `,
            h('a', { href: `${BASE}/campaigns/${campaign.id}` }, campaign.name),
            ` was rejected: ${creative.rejection_reason ?? 'no reason given'}`,
          ),
        ),
        ...(waiting.length
          ? [
              h(
                'li',
                {},
                `${count(waiting.length)} creative(s) waiting for moderation, ${wait}: `,
                [...new Map(waiting.map((w) => [w.campaign.id, w.campaign])).values()].flatMap((c, i) => [
                  i ? ', ' : '',
                  h('a', { href: `${BASE}/campaigns/${c.id}` }, c.name),
                ]),
              ),
            ]
          : []),
      ],
      allClearText(campaigns),
    ),
  );
}

/** What the publisher is paid next: an open payout, or how far the balance is from the threshold. */
function nextPayoutText(
  b: Outputs['pub']['payouts']['balance'],
  payouts: Outputs['pub']['payouts']['list']['payouts'],
): string {
  const open = payouts.find((p) => p.status === 'due' || p.status === 'held');
  if (open?.status === 'due') return `${money(open.amount_cents)} due, being paid`;
  if (open?.status === 'held') return `${money(open.amount_cents)} held: ${open.hold_reason ?? 'ask support'}`;
  if (!b.settings) return 'set up payouts to be paid';
  const toGo = b.settings.threshold_cents - b.balance_cents;
  return toGo > 0 ? `at ${money(b.settings.threshold_cents)}, ${money(toGo)} to go` : 'at the next daily close';
}

/** The zones that earned most in the trend's range, by name. */
function bestZones(rows: readonly Row[], zones: Outputs['pub']['zones']['list']['zones']): HTMLElement {
  const name = new Map(zones.map((z) => [z.id, z.name]));
  const top = [...rows]
    .sort(
      (x, y) => Number(y.earnings_cents) - Number(x.earnings_cents) || Number(y.impressions) - Number(x.impressions),
    )
    .slice(0, 5);
  return h(
    'section',
    { 'aria-labelledby': 'best-zones' },
    h('h2', { id: 'best-zones' }, `Best zones, last ${TREND_DAYS} days`),
    top.length
      ? table(
          ['Zone', 'Impressions', 'Earnings', 'eCPM'],
          top.map((z) => [
            name.get(Number(z.zone_id)) ?? `#${z.zone_id}`,
            count(Number(z.impressions)),
            money(Number(z.earnings_cents)),
            money(ecpmCents(Number(z.earnings_cents), Number(z.impressions))),
          ]),
          'Zones by earnings',
        )
      : h('p', {}, 'No zone has shown an ad yet.'),
  );
}

/** Share of valid ad requests that became impressions (docs/events-and-stats.md), a dash without any. */
const fillRate = (impressions: number, unfilled: number): string =>
  impressions + unfilled > 0 ? percent(impressions / (impressions + unfilled)) : '–';

/** The publisher's home: today's earnings against yesterday, the trend, the best zones, money to come, and what cannot serve. */
async function publisherOverview(ctx: PageContext): Promise<void> {
  const r = range();
  const [stats, byZone, { sites }, { zones }, balance, { payouts }] = await Promise.all([
    api.pub.stats.get.query({ from: r.from, to: r.to, group_by: 'day', tz: r.tz }),
    api.pub.stats.get.query({ from: r.from, to: r.to, group_by: 'zone', tz: r.tz }),
    api.pub.sites.list.query(),
    api.pub.zones.list.query(),
    api.pub.payouts.balance.query({ limit: 1 }),
    api.pub.payouts.list.query({ limit: 10 }),
  ]);
  const rows = stats.rows as Row[];
  const figures = todayAndYesterday(rows, r);
  const [earn, earnY] = figures('earnings_cents');
  const [imp, impY] = figures('impressions');
  const [unfilled, unfilledY] = figures('unfilled');
  const siteOf = new Map(sites.map((s) => [s.id, s]));
  const stuck = zones
    .map((z) => ({ z, d: zoneDelivery(z.status, siteOf.get(z.site_id)?.status) }))
    .filter(({ z, d }) => z.status === 'active' && !d.serving);
  const inReview = sites.filter((x) => x.status === 'pending_review');
  const stale = freshnessBox();
  void showFreshness(stale);
  ctx.main.replaceChildren(
    h('h1', {}, 'Overview'),
    stale,
    sites.length === 0
      ? h(
          'section',
          { class: 'empty' },
          h('h2', {}, 'Start earning'),
          h(
            'ol',
            {},
            h('li', {}, h('a', { href: `${BASE}/sites` }, 'Add your site'), ' and verify it with the tag we give you.'),
            h('li', {}, 'We review the site, usually within a working day.'),
            h('li', {}, h('a', { href: `${BASE}/zones` }, 'Create a zone'), ' and paste its snippet into your pages.'),
          ),
        )
      : '',
    h(
      'div',
      { class: 'tiles', role: 'group', 'aria-label': 'Today' },
      tile('Earnings today', money(earn), money(earnY)),
      ...trafficTiles(figures, false),
      tile('eCPM', money(ecpmCents(earn, imp)), money(ecpmCents(earnY, impY))),
      tile('Fill rate', fillRate(imp, unfilled), fillRate(impY, unfilledY), `${count(unfilled)} requests unfilled`),
      tile('Balance', money(balance.balance_cents), undefined, `next payout ${nextPayoutText(balance, payouts)}`),
    ),
    trend(daysOf(r.from, r.to), rows),
    bestZones(byZone.rows, zones),
    attention(
      [
        ...inReview.map((x) =>
          h(
            'li',
            {},
            h('a', { href: `${BASE}/sites` }, x.domain),
            ': waiting for our review, usually within a working day',
          ),
        ),
        ...stuck.map(({ z, d }) =>
          h(
            'li',
            {},
            h('a', { href: `${BASE}/zones` }, z.name),
            `: not serving, ${d.reasons.map((x) => ZONE_NOT_SERVING_TEXT[x]).join(', ')}`,
          ),
        ),
      ],
      'Every active zone can serve.',
    ),
  );
}

type DemandPartner = Outputs['admin']['listDemandPartners']['demand_partners'][number];

/** A demand partner's state in a word: what an admin looks at first. */
function demandHealth(p: DemandPartner): string {
  if (p.status !== 'active') return 'disabled';
  if (p.health.circuit !== 'closed') return `circuit ${p.health.circuit.replace('_', '-')}`;
  const c = p.health.counters;
  const failed = (c.timeouts ?? 0) + (c.errors ?? 0);
  return (c.requests ?? 0) > 0 && failed / (c.requests ?? 1) > 0.1 ? 'failing often' : 'healthy';
}

/** The admin's home: what waits for a decision, today's money across the network, and the partners' health. */
async function adminOverview(ctx: PageContext): Promise<void> {
  const r = range();
  const [stats, { creatives }, { sites }, { payouts }, { partners }, { demand_partners }] = await Promise.all([
    api.admin.stats.query({ from: r.yesterday, to: r.today, group_by: 'day', tz: r.tz }),
    api.admin.moderationQueue.query({ limit: 100 }),
    api.admin.siteQueue.query(),
    api.admin.listPayouts.query({ status: 'due', limit: 200 }),
    api.admin.listPartners.query(),
    api.admin.listDemandPartners.query(),
  ]);
  const rows = stats.rows as Row[];
  const [spent, spentY] = todayAndYesterday(rows, r)('spent_cents');
  const queue = (n: number, what: string, href: string, more = '') =>
    h('li', {}, h('a', { href: `${BASE}${href}` }, `${count(n)} ${what}`), n ? more : '');
  const stale = freshnessBox();
  void showFreshness(stale);
  ctx.main.replaceChildren(
    h('h1', {}, 'Overview'),
    stale,
    h(
      'div',
      { class: 'tiles', role: 'group', 'aria-label': 'Network today' },
      tile('Advertiser spend today', money(spent), money(spentY)),
      ...trafficTiles(todayAndYesterday(rows, r)),
      tile(
        'Demand-partner revenue',
        moneyNano(demand_partners.reduce((a, p) => a + (p.health.counters.revenue_nano ?? 0), 0)),
        undefined,
        'since the engines began counting',
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'queues' },
      h('h2', { id: 'queues' }, 'Waiting for a decision'),
      h(
        'ul',
        { class: 'attention' },
        queue(
          creatives.length,
          'creative(s) to moderate',
          '/moderation',
          creatives[0] ? `, the oldest since ${new Date(creatives[0].created_at).toLocaleString()}` : '',
        ),
        queue(sites.length, 'site(s) to review', '/moderation'),
        queue(
          payouts.length,
          'payout(s) due',
          '/payout-queue',
          `: ${money(payouts.reduce((a, p) => a + p.amount_cents, 0))} in all`,
        ),
      ),
    ),
    h(
      'section',
      { 'aria-labelledby': 'partner-health' },
      h('h2', { id: 'partner-health' }, 'Partner health'),
      table(
        ['Partner', 'Kind', 'State', 'Requests', 'Timeouts and errors', 'Revenue'],
        [
          ...demand_partners.map((p) => {
            const c = p.health.counters;
            return [
              h('a', { href: `${BASE}/demand-partners` }, p.name),
              'demand (DSP)',
              badge(demandHealth(p)),
              count(c.requests ?? 0),
              count((c.timeouts ?? 0) + (c.errors ?? 0)),
              moneyNano(c.revenue_nano ?? 0),
            ];
          }),
          ...partners.map((p) => [
            h('a', { href: `${BASE}/partners` }, p.name),
            'exchange (supply)',
            badge(p.status),
            '–',
            '–',
            '–',
          ]),
        ],
        'Demand partners as the engines count them; exchanges by status',
      ),
    ),
  );
}

export function overviewPage(ctx: PageContext): Promise<void> {
  return ctx.session.role === 'publisher'
    ? publisherOverview(ctx)
    : ctx.session.role === 'admin'
      ? adminOverview(ctx)
      : advertiserOverview(ctx);
}
