// Zod-free module: the bundle gets the CSV writer only.
import { csvTable } from '@adnet/schemas/csv';
import { api } from '../api.ts';
import type { FORMATS } from '../choices.ts';
import {
  ADMIN_STATS_DIMENSIONS,
  PUBLISHER_STATS_DIMENSIONS,
  STATS_DIMENSION_COLUMNS,
  STATS_DIMENSIONS,
} from '../choices.ts';
import { lineChart } from '../chart.ts';
import { countryLabel } from '../countries.ts';
import { PRESETS, PRESET_LABELS, presetRange } from '../date-range.ts';
import type { Preset } from '../date-range.ts';
import { actionButton, h } from '../dom.ts';
import { buildForm, checked, text } from '../form.ts';
import { count, ctrOf, ecpaCents, ecpmCents, money, percent, spend } from '../format.ts';
import { grid } from '../grid.ts';
import type { Column } from '../grid.ts';
import type { PageContext } from '../router.ts';
import { daysOf, fillSlots, hoursOf } from '../series.ts';
import { sourceActions } from './traffic-sources.ts';
import { freshnessBox, showFreshness } from '../stats-freshness.ts';
import { UNCOUNTED_KIND_LABELS, uncountedByReason, uncountedReasonLabel } from '../uncounted.ts';
import type { UncountedRow } from '../uncounted.ts';

type Dimension = (typeof ADMIN_STATS_DIMENSIONS)[number];
export type StatsRow = Record<string, string | number | null | undefined>;
/** Demand partners' auction counters: admin rows grouped by demand (and day) carry them. */
const AUCTION_COUNTERS = [
  ['bid_requests', 'Bid requests'],
  ['bids', 'Bids'],
  ['wins', 'Wins'],
  ['timeouts', 'Timeouts'],
  ['errors', 'Errors'],
] as const;
/** How a person calls each dimension; its column in the API's rows is STATS_DIMENSION_COLUMNS (schemas/src/stats.ts). */
const LABELS: Record<Dimension, string> = {
  day: 'Day',
  hour: 'Hour',
  campaign: 'Campaign',
  creative: 'Creative',
  geo: 'Country',
  device: 'Device',
  os: 'OS',
  browser: 'Browser',
  site: 'Site',
  zone: 'Zone',
  source: 'Source',
  demand: 'Demand',
  integration: 'Integration',
  format: 'Format',
};
/** How a person calls each ad format (schemas/src/formats.ts CAMPAIGN_FORMATS), as served. */
const FORMAT_LABELS: Record<(typeof FORMATS)[number], string> = {
  native: 'Native',
  banner: 'Banner',
  video: 'Video (in-stream)',
  floating_video: 'Floating video',
  push: 'Web push',
  in_page_push: 'In-page push',
  popunder: 'Popunder',
  direct_link: 'Direct link',
  interstitial: 'Interstitial',
};
/** How a person calls each integration (schemas/src/events.ts INTEGRATIONS). */
const INTEGRATION_LABELS: Record<string, string> = {
  widget: 'Widget script',
  vast: 'VAST player',
  openrtb: 'OpenRTB partners',
  prebid: 'Prebid.js',
  push: 'Web push',
  direct_link: 'Direct link',
  popunder: 'Popunder',
};
const COUNTED = [
  'impressions',
  'viewable_impressions',
  'clicks',
  'invalid_clicks',
  'conversions',
  'spent_cents',
  'spent_nano',
  'earnings_cents',
  'unfilled',
] as const;

const num = (r: StatsRow, k: string) => Number(r[k] ?? 0);
const total = (rows: StatsRow[], k: string) => rows.reduce((a, r) => a + num(r, k), 0);

function download(name: string, body: string): void {
  const a = h('a', { href: URL.createObjectURL(new Blob([body], { type: 'text/csv' })), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

/** Names for the ids in a breakdown: what a person picked them by. */
type Names = Partial<Record<Dimension, Map<string, string>>>;

function keyCell(dim: Dimension, r: StatsRow, names: Names): string {
  const raw = r[STATS_DIMENSION_COLUMNS[dim]];
  if (raw === undefined || raw === '') return dim === 'geo' ? 'Unknown' : '–';
  if (dim === 'geo') return countryLabel(String(raw));
  if (dim === 'integration') return INTEGRATION_LABELS[String(raw)] ?? String(raw);
  if (dim === 'format') return (FORMAT_LABELS as Record<string, string>)[String(raw)] ?? String(raw);
  if (dim === 'demand') return raw === 'own' ? 'Our campaigns' : `${r.demand_name || 'Demand partner'} (#${raw})`;
  const name = names[dim]?.get(String(raw));
  // Advertisers know a zone by its subid: the name their campaigns' source lists take.
  if (!name && dim === 'zone' && r.zone_subid) return `${r.zone_subid} (#${raw})`;
  return name
    ? `${name} (#${raw})`
    : dim === 'campaign' || dim === 'creative' || dim === 'site' || dim === 'zone'
      ? `#${raw}`
      : String(raw);
}

/**
 * An admin works across every account: the campaigns, sites and zones in the rows are named by one
 * read of their ids, with whose they are (the advertiser's or publisher's email) beside the name.
 */
async function adminNames(rows: StatsRow[], groups: Dimension[], names: Names): Promise<void> {
  const ids = (dim: Dimension) =>
    groups.includes(dim)
      ? [...new Set(rows.map((r) => Number(r[STATS_DIMENSION_COLUMNS[dim]])).filter((n) => n > 0))].slice(0, 500)
      : [];
  const wanted = { campaigns: ids('campaign'), sites: ids('site'), zones: ids('zone') };
  if (!wanted.campaigns.length && !wanted.sites.length && !wanted.zones.length) return;
  const found = await api.admin.names.query(wanted);
  names.campaign = new Map(found.campaigns.map((c) => [String(c.id), `${c.name} · ${c.advertiser_email}`]));
  names.site = new Map(found.sites.map((x) => [String(x.id), `${x.domain} · ${x.publisher_email}`]));
  names.zone = new Map(found.zones.map((z) => [String(z.id), `${z.name} (${z.subid})`]));
}

/**
 * Statistics for advertisers (spend, conversions), publishers (earnings) and admins (all traffic, by
 * demand too): a range by preset or dates, a campaign filter, grouping; a chart with silent days and
 * hours drawn as zero; a sortable table with names beside ids, formatted figures and a totals row; CSV
 * as the API writes it.
 */
export async function statsPage(ctx: PageContext): Promise<void> {
  const publisher = ctx.session.role === 'publisher';
  const admin = ctx.session.role === 'admin';
  const dims = publisher ? PUBLISHER_STATS_DIMENSIONS : admin ? ADMIN_STATS_DIMENSIONS : STATS_DIMENSIONS;
  const out = h('div', { 'aria-live': 'polite' });
  const stale = freshnessBox();
  const tz0 = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const initial = presetRange('last_7_days', Date.now(), tz0);
  type Query = { from: string; to: string; group_by: string; tz: string; campaign_id?: number };
  let last: Query | null = null;

  // Names are read once per page: campaigns (advertisers), sites and zones (publishers).
  const names: Names = {};
  let campaigns: { id: number; name: string }[] = [];
  if (publisher) {
    const [{ sites }, { zones }] = await Promise.all([api.pub.sites.list.query(), api.pub.zones.list.query()]);
    names.site = new Map(sites.map((s) => [String(s.id), s.domain]));
    names.zone = new Map(zones.map((z) => [String(z.id), z.name]));
  } else if (!admin) {
    campaigns = (await api.adv.campaigns.list.query()).campaigns;
    names.campaign = new Map(campaigns.map((c) => [String(c.id), c.name]));
  }
  const creativeNames = async (rows: StatsRow[]) => {
    const ids = [...new Set(rows.map((r) => Number(r.campaign_id)).filter((id) => names.campaign?.has(String(id))))];
    const lists = await Promise.all(ids.map((campaign_id) => api.adv.creatives.list.query({ campaign_id })));
    names.creative = new Map(
      lists.flatMap((l) => l.creatives.map((c) => [String(c.id), c.title ?? `${c.format} creative`])),
    );
  };

  const query = async (q: Query): Promise<StatsRow[]> =>
    (publisher
      ? await api.pub.stats.get.query(q)
      : admin
        ? await api.admin.stats.query(q)
        : await api.adv.stats.get.query(q)
    ).rows;

  const metricColumns = (): Column<StatsRow>[] => {
    const c = (
      key: string,
      label: string,
      { cell, total, sort }: Required<Pick<Column<StatsRow>, 'cell' | 'total' | 'sort'>>,
    ): Column<StatsRow> => ({
      key,
      label,
      numeric: true,
      cell,
      total,
      sort,
    });
    const counted = (key: string, label: string) =>
      c(key, label, {
        cell: (r) => count(num(r, key)),
        total: (rs) => count(total(rs, key)),
        sort: (r) => num(r, key),
      });
    const moneyKey = publisher ? 'earnings_cents' : 'spent_cents';
    const cols = [
      counted('impressions', 'Impressions'),
      counted('viewable_impressions', 'Viewable'),
      counted('clicks', 'Clicks'),
      counted('invalid_clicks', 'Invalid clicks'),
      c('ctr', 'CTR', {
        cell: (r) => percent(ctrOf(num(r, 'clicks'), num(r, 'impressions'))),
        total: (rs) => percent(ctrOf(total(rs, 'clicks'), total(rs, 'impressions'))),
        sort: (r) => ctrOf(num(r, 'clicks'), num(r, 'impressions')),
      }),
      c(moneyKey, publisher ? 'Earnings' : 'Spend', {
        // Spend to its real value under a cent (the exact `spent_nano`), where cents would read $0.00.
        cell: (r) => (publisher ? money(num(r, moneyKey)) : spend(num(r, 'spent_nano'))),
        total: (rs) => (publisher ? money(total(rs, moneyKey)) : spend(total(rs, 'spent_nano'))),
        sort: (r) => num(r, moneyKey),
      }),
      c('ecpm', 'eCPM', {
        cell: (r) => money(ecpmCents(num(r, moneyKey), num(r, 'impressions'))),
        total: (rs) => money(ecpmCents(total(rs, moneyKey), total(rs, 'impressions'))),
        sort: (r) => ecpmCents(num(r, moneyKey), num(r, 'impressions')),
      }),
    ];
    if (publisher) {
      // Valid requests that became impressions (docs/events-and-stats.md); a dash without any.
      const fill = (imp: number, unfilled: number) => (imp + unfilled > 0 ? imp / (imp + unfilled) : null);
      const shown = (v: number | null) => (v === null ? '–' : percent(v));
      return [
        ...cols,
        c('fill_rate', 'Fill rate', {
          cell: (r) => shown(fill(num(r, 'impressions'), num(r, 'unfilled'))),
          total: (rs) => shown(fill(total(rs, 'impressions'), total(rs, 'unfilled'))),
          sort: (r) => fill(num(r, 'impressions'), num(r, 'unfilled')),
        }),
      ];
    }
    // Our campaigns' rows have no auction counters (they are not asked over HTTP): a dash, not a zero.
    const auction = AUCTION_COUNTERS.filter(([key]) => shownRows.some((r) => r[key] !== undefined)).map(
      ([key, label]) =>
        c(key, label, {
          cell: (r) => (r[key] === undefined ? '–' : count(num(r, key))),
          total: (rs) => count(total(rs, key)),
          sort: (r) => num(r, key),
        }),
    );
    const ecpa = (spent: number, conv: number) => {
      const v = ecpaCents(spent, conv);
      return v === null ? '–' : money(v);
    };
    return [
      ...cols,
      counted('conversions', 'Conversions'),
      c('ecpa', 'eCPA', {
        cell: (r) => ecpa(num(r, 'spent_cents'), num(r, 'conversions')),
        total: (rs) => ecpa(total(rs, 'spent_cents'), total(rs, 'conversions')),
        sort: (r) => ecpaCents(num(r, 'spent_cents'), num(r, 'conversions')),
      }),
      ...auction,
    ];
  };
  let shownRows: StatsRow[] = [];

  /** A publisher's traffic that was not counted in the range, by kind and reason: what it is not paid for, and why. */
  const uncountedTable = (rows: UncountedRow[], q: Query): HTMLElement => {
    const summed = uncountedByReason(rows);
    return h(
      'section',
      { 'aria-labelledby': 'uncounted-h' },
      h('h2', { id: 'uncounted-h' }, 'Not counted'),
      h(
        'p',
        { class: 'muted' },
        'Invalid traffic on your zones, and ads that were not counted: not paid, and not in the figures above.',
      ),
      grid({
        caption: `Not counted, ${q.from} to ${q.to} (${q.tz})`,
        columns: [
          {
            key: 'of',
            label: 'What',
            cell: (r) => UNCOUNTED_KIND_LABELS[r.of],
            sort: (r) => UNCOUNTED_KIND_LABELS[r.of],
          },
          {
            key: 'reason',
            label: 'Reason',
            cell: (r) => uncountedReasonLabel(r.of, r.reason),
            sort: (r) => uncountedReasonLabel(r.of, r.reason).toLowerCase(),
          },
          {
            key: 'events',
            label: 'Count',
            numeric: true,
            cell: (r) => count(r.events),
            total: (rs) => count(rs.reduce((a, r) => a + r.events, 0)),
            sort: (r) => r.events,
          },
        ],
        rows: summed,
        sortBy: { key: 'events', dir: 'desc' },
        empty: 'Nothing refused in this range',
      }),
    );
  };

  const show = async (rows: StatsRow[], groups: Dimension[], q: Query, uncounted: UncountedRow[] | null) => {
    const time = groups.length === 1 && (groups[0] === 'day' || groups[0] === 'hour') ? groups[0] : null;
    // Silent days and hours count as zero: in the chart and in the table.
    const shown = time
      ? fillSlots(
          time === 'day' ? daysOf(q.from, q.to) : hoursOf(q.from, q.to),
          rows,
          STATS_DIMENSION_COLUMNS[time],
          COUNTED,
        )
      : rows;
    shownRows = shown;
    const chart = time
      ? lineChart(
          shown.map((r) => String(r[STATS_DIMENSION_COLUMNS[time]])),
          [
            { name: 'Impressions', color: '#2563eb', values: shown.map((r) => num(r, 'impressions')) },
            { name: 'Clicks', color: '#dc2626', values: shown.map((r) => num(r, 'clicks')) },
          ],
          'Impressions and clicks over time',
        )
      : h('p', {}, 'Group by day or hour alone to see the chart.');
    // Grouped by zone or site, an advertiser can exclude or include each in one click (pages/traffic-sources.ts);
    // the sites it knows by domain name the site column too, as the publisher's own sites do.
    const sources = publisher || admin ? null : await sourceActions(shown, groups);
    if (sources) names.site = sources.siteNames;
    if (admin) await adminNames(shown, groups, names);
    const keyColumns: Column<StatsRow>[] = groups.map((g) => ({
      key: g,
      label: LABELS[g],
      cell: (r) => keyCell(g, r, names),
      sort: (r) =>
        g === 'day' || g === 'hour' ? String(r[STATS_DIMENSION_COLUMNS[g]] ?? '') : keyCell(g, r, names).toLowerCase(),
    }));
    const actions: Column<StatsRow>[] = sources
      ? [{ key: 'actions', label: 'Traffic source list', cell: (r) => sources.cell(r) }]
      : [];
    out.replaceChildren(
      chart,
      sources?.picker ?? '',
      grid({
        caption: `Breakdown, ${q.from} to ${q.to} (${q.tz})`,
        columns: [...keyColumns, ...metricColumns(), ...actions],
        rows: shown,
        sortBy: time ? { key: time, dir: 'asc' } : { key: publisher ? 'earnings_cents' : 'spent_cents', dir: 'desc' },
        empty: 'No traffic in this range',
      }),
      actionButton('Export CSV', async () => {
        if (!last) return;
        if (publisher) {
          const keys = groups.flatMap((g) =>
            g === 'demand' ? ['demand', 'demand_name'] : [STATS_DIMENSION_COLUMNS[g]],
          );
          const cols = [
            ...keys,
            'impressions',
            'viewable_impressions',
            'clicks',
            'invalid_clicks',
            'ctr',
            'earnings_cents',
            'unfilled',
            'fill_rate',
          ];
          download('earnings.csv', csvTable(cols, await query(last)));
        } else if (admin) {
          download('stats.csv', (await api.admin.stats.query({ ...last, format: 'csv' })).csv ?? '');
        } else {
          download('stats.csv', (await api.adv.stats.get.query({ ...last, format: 'csv' })).csv ?? '');
        }
      }),
      uncounted ? uncountedTable(uncounted, q) : '',
    );
  };

  const presetField = h('select', { id: 'stats-range', name: 'range', 'aria-label': 'Range' }, [
    ...PRESETS.map((p) => h('option', { value: p, selected: p === 'last_7_days' }, PRESET_LABELS[p])),
    h('option', { value: 'custom' }, 'Custom dates'),
  ]);
  const { form } = buildForm({
    label: 'Statistics query',
    submit: 'Show',
    fields: [
      { name: 'from', label: 'From', type: 'date', value: initial.from },
      { name: 'to', label: 'To', type: 'date', value: initial.to },
      { name: 'tz', label: 'Time zone', value: tz0, hint: 'IANA name, e.g. Europe/Berlin' },
      ...(publisher || admin
        ? []
        : [
            {
              name: 'campaign_id',
              label: 'Campaign',
              type: 'select' as const,
              options: ['', ...campaigns.map((c) => String(c.id))],
              // Picked by name; the value stays the id.
              optionLabel: (id: string) => (id ? (names.campaign?.get(id) ?? id) : 'All campaigns'),
            },
          ]),
      { name: 'group_by', label: 'Group by', type: 'checkboxes', options: dims, value: ['day'] },
    ],
    async onSubmit(d) {
      const groups = checked(d, 'group_by') as Dimension[];
      const campaign = publisher ? '' : text(d, 'campaign_id');
      last = {
        from: text(d, 'from'),
        to: text(d, 'to'),
        group_by: groups.join(','),
        tz: text(d, 'tz'),
        ...(campaign ? { campaign_id: Number(campaign) } : {}),
      };
      out.replaceChildren(h('p', { role: 'status', class: 'loading' }, 'Loading…'));
      const effective = groups.length ? groups : (['day'] as Dimension[]);
      const range = { from: last.from, to: last.to, tz: last.tz };
      const [rows, uncounted] = await Promise.all([
        query(last),
        publisher ? api.pub.stats.uncounted.query(range).then((r) => r.rows) : null,
        showFreshness(stale),
      ]);
      if (effective.includes('creative')) await creativeNames(rows);
      await show(rows, effective, last, uncounted);
    },
  });
  // A preset fills the dates; editing a date makes the range custom.
  const dateInput = (n: string) => form.querySelector<HTMLInputElement>(`input[name="${n}"]`);
  presetField.addEventListener('change', () => {
    if (presetField.value === 'custom') return;
    const r = presetRange(presetField.value as Preset, Date.now(), dateInput('tz')?.value || tz0);
    const [f, t] = [dateInput('from'), dateInput('to')];
    if (f && t) [f.value, t.value] = [r.from, r.to];
    form.requestSubmit();
  });
  for (const n of ['from', 'to']) dateInput(n)?.addEventListener('input', () => (presetField.value = 'custom'));
  form.prepend(h('div', { class: 'field' }, h('label', { for: 'stats-range' }, 'Range'), presetField));
  ctx.main.replaceChildren(h('h1', {}, publisher ? 'Earnings' : 'Statistics'), stale, form, out);
  form.requestSubmit();
}
