import { ZONE_NOT_SERVING_TEXT, zoneDelivery } from '@adnet/schemas/zone-delivery';
import { api } from '../api.ts';
import { lineChart } from '../chart.ts';
import { deliveryText } from '../delivery-text.ts';
import { h } from '../dom.ts';
import { count, ctrOf, ecpmCents, money, percent } from '../format.ts';
import type { PageContext } from '../router.ts';
import { BASE } from '../router.ts';
import { daysOf, fillSlots } from '../series.ts';

type Row = Record<string, string | number | undefined>;
const TREND_DAYS = 14;

/** Today and the 13 days before it, in the browser's time zone (the API's days are in `tz`). */
function range(): { from: string; to: string; today: string; yesterday: string; tz: string } {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const day = (offset: number) => new Intl.DateTimeFormat('en-CA', { timeZone: tz }).format(new Date(Date.now() - offset * 86_400_000));
  return { from: day(TREND_DAYS - 1), to: day(0), today: day(0), yesterday: day(1), tz };
}

const sum = (rows: Row[], k: string) => rows.reduce((a, r) => a + Number(r[k] ?? 0), 0);

/** One figure with yesterday's beside it, so a change is seen without a chart. */
function tile(label: string, value: string, before?: string): HTMLElement {
  return h(
    'div',
    { class: 'tile' },
    h('span', { class: 'tile-label' }, label),
    h('strong', { class: 'tile-value' }, value),
    before ? h('small', {}, `yesterday ${before}`) : null,
  );
}

function trend(days: string[], rows: Row[]): HTMLElement {
  const filled = fillSlots(days, rows, 'date', ['impressions', 'clicks']);
  return lineChart(
    days,
    [
      { name: 'Impressions', color: '#2563eb', values: filled.map((r) => Number(r.impressions)) },
      { name: 'Clicks', color: '#dc2626', values: filled.map((r) => Number(r.clicks)) },
    ],
    `Impressions and clicks, last ${TREND_DAYS} days`,
  );
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
  const [stats, balance, { campaigns }] = await Promise.all([
    api.adv.stats.get.query({ from: r.from, to: r.to, group_by: 'day', tz: r.tz }),
    api.adv.balance.get.query({ limit: 1 }),
    api.adv.campaigns.list.query(),
  ]);
  const rows = stats.rows as Row[];
  const on = (d: string) => rows.filter((x) => x.date === d);
  const [t, y] = [on(r.today), on(r.yesterday)];
  const figures = (k: string) => [sum(t, k), sum(y, k)] as const;
  const [imp, impY] = figures('impressions');
  const [clk, clkY] = figures('clicks');
  const [spent, spentY] = figures('spent_cents');
  const [conv, convY] = figures('conversions');
  const stuck = campaigns.filter((c) => c.status === 'active' && !c.delivery.serving);
  ctx.main.replaceChildren(
    h('h1', {}, 'Overview'),
    campaigns.length === 0
      ? h(
          'section',
          { class: 'empty' },
          h('h2', {}, 'Start your first campaign'),
          h(
            'ol',
            {},
            h('li', {}, h('a', { href: `${BASE}/campaigns/new` }, 'Create a campaign'), ': name, format, bid and daily budget.'),
            h('li', {}, 'Upload a creative. Our moderators review it, usually within a few hours; you are told by email.'),
            h('li', {}, 'Add funds to your balance. Campaigns spend only what the balance holds.'),
            h('li', {}, 'Activate the campaign. It serves as soon as a creative is approved and the balance is above zero.'),
          ),
        )
      : '',
    h(
      'div',
      { class: 'tiles', role: 'group', 'aria-label': 'Today' },
      tile('Spend today', money(spent), money(spentY)),
      tile('Impressions', count(imp), count(impY)),
      tile('Clicks', count(clk), count(clkY)),
      tile('CTR', percent(ctrOf(clk, imp)), percent(ctrOf(clkY, impY))),
      tile('Conversions', count(conv), count(convY)),
      tile('Balance', money(balance.balance_cents)),
    ),
    trend(daysOf(r.from, r.to), rows),
    attention(
      [
        ...(balance.balance_cents <= 0 && campaigns.length
          ? [h('li', {}, 'Your balance is empty: no campaign can win an auction. ', h('a', { href: `${BASE}/balance` }, 'Add funds'))]
          : []),
        ...stuck.map((c) => h('li', {}, h('a', { href: `${BASE}/campaigns/${c.id}` }, c.name), `: ${deliveryText(c.delivery)}`)),
      ],
      'Every active campaign is serving.',
    ),
  );
}

/** The publisher's home: today's earnings against yesterday, the trend, and zones that cannot serve. */
async function publisherOverview(ctx: PageContext): Promise<void> {
  const r = range();
  const [stats, { sites }, { zones }] = await Promise.all([
    api.pub.stats.get.query({ from: r.from, to: r.to, group_by: 'day', tz: r.tz }),
    api.pub.sites.list.query(),
    api.pub.zones.list.query(),
  ]);
  const rows = stats.rows as Row[];
  const on = (d: string) => rows.filter((x) => x.date === d);
  const [t, y] = [on(r.today), on(r.yesterday)];
  const [earn, earnY] = [sum(t, 'earnings_cents'), sum(y, 'earnings_cents')];
  const [imp, impY] = [sum(t, 'impressions'), sum(y, 'impressions')];
  const [clk, clkY] = [sum(t, 'clicks'), sum(y, 'clicks')];
  const siteOf = new Map(sites.map((s) => [s.id, s]));
  const stuck = zones.map((z) => ({ z, d: zoneDelivery(z.status, siteOf.get(z.site_id)?.status) })).filter(({ z, d }) => z.status === 'active' && !d.serving);
  ctx.main.replaceChildren(
    h('h1', {}, 'Overview'),
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
      tile('Impressions', count(imp), count(impY)),
      tile('Clicks', count(clk), count(clkY)),
      tile('eCPM', money(ecpmCents(earn, imp)), money(ecpmCents(earnY, impY))),
    ),
    trend(daysOf(r.from, r.to), rows),
    attention(
      stuck.map(({ z, d }) =>
        h('li', {}, h('a', { href: `${BASE}/zones` }, z.name), `: not serving, ${d.reasons.map((x) => ZONE_NOT_SERVING_TEXT[x]).join(', ')}`),
      ),
      'Every active zone can serve.',
    ),
  );
}

export function overviewPage(ctx: PageContext): Promise<void> {
  return ctx.session.role === 'publisher' ? publisherOverview(ctx) : advertiserOverview(ctx);
}
