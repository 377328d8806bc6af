// Zod-free module: the bundle gets the CSV writer only.
import { csvTable } from '@adnet/schemas/csv';
import { api } from '../api.ts';
import { STATS_DIMENSIONS } from '../choices.ts';
import { lineChart } from '../chart.ts';
import { actionButton, h, table, usd } from '../dom.ts';
import { buildForm, checked, text } from '../form.ts';
import type { PageContext } from '../router.ts';

type Dimension = (typeof STATS_DIMENSIONS)[number];
type Row = Record<string, string | number | undefined>;
const PUBLISHER_DIMENSIONS: readonly Dimension[] = ['day', 'hour', 'geo', 'device', 'os', 'browser', 'site', 'zone'];
const KEY_COLUMNS: Record<Dimension, string> = {
  day: 'date',
  hour: 'hour',
  campaign: 'campaign_id',
  creative: 'creative_id',
  geo: 'geo',
  device: 'device',
  os: 'os',
  browser: 'browser',
  site: 'site_id',
  zone: 'zone_id',
  source: 'source',
};
const CENTS = new Set(['spent_cents', 'ecpa_cents', 'earnings_cents']);

const isoDay = (d: Date) => d.toISOString().slice(0, 10);

function download(name: string, body: string): void {
  const a = h('a', { href: URL.createObjectURL(new Blob([body], { type: 'text/csv' })), download: name });
  document.body.append(a);
  a.click();
  a.remove();
}

/** Statistics for advertisers (spend, conversions) and publishers (earnings): range, grouping, chart, table, CSV. */
export function statsPage(ctx: PageContext): void {
  const publisher = ctx.session.role === 'publisher';
  const dims = publisher ? PUBLISHER_DIMENSIONS : STATS_DIMENSIONS;
  const metrics = publisher
    ? ['impressions', 'viewable_impressions', 'clicks', 'invalid_clicks', 'ctr', 'earnings_cents']
    : ['impressions', 'viewable_impressions', 'clicks', 'invalid_clicks', 'ctr', 'spent_cents', 'conversions', 'ecpa_cents'];
  const out = h('div', { 'aria-live': 'polite' });
  const today = new Date();
  type Query = { from: string; to: string; group_by: string; tz: string };
  let last: Query | null = null;

  const query = async (q: Query): Promise<Row[]> => (publisher ? (await api.pub.stats.get.query(q)).rows : (await api.adv.stats.get.query(q)).rows);

  const show = (rows: Row[], groups: Dimension[]) => {
    // Advertisers see each zone's subid too: the name their campaigns' source lists take.
    const keys = groups.flatMap((g) => (g === 'zone' && !publisher ? ['zone_id', 'zone_subid'] : [KEY_COLUMNS[g]]));
    const timeKey = groups.includes('hour') ? 'hour' : groups.includes('day') ? 'date' : null;
    const chart =
      timeKey && groups.length === 1
        ? lineChart(
            rows.map((r) => String(r[timeKey])),
            [
              { name: 'Impressions', color: '#2563eb', values: rows.map((r) => Number(r.impressions ?? 0)) },
              { name: 'Clicks', color: '#dc2626', values: rows.map((r) => Number(r.clicks ?? 0)) },
            ],
            'Impressions and clicks over time',
          )
        : h('p', {}, 'Group by day or hour alone to see the chart.');
    const cell = (r: Row, k: string) => (CENTS.has(k) ? usd(Number(r[k] ?? 0)) : String(r[k] ?? ''));
    out.replaceChildren(
      chart,
      table(
        [...keys, ...metrics],
        rows.map((r) => [...keys, ...metrics].map((k) => cell(r, k))),
        'Breakdown',
      ),
      actionButton('Export CSV', async () => {
        if (!last) return;
        if (publisher) {
          const rows2 = await query(last);
          const cols = [...keys, ...metrics];
          download('earnings.csv', csvTable(cols, rows2));
        } else {
          download('stats.csv', (await api.adv.stats.get.query({ ...last, format: 'csv' })).csv ?? '');
        }
      }),
    );
  };

  const { form } = buildForm({
    label: 'Statistics query',
    submit: 'Show',
    fields: [
      { name: 'from', label: 'From', type: 'date', value: isoDay(new Date(today.getTime() - 6 * 86_400_000)) },
      { name: 'to', label: 'To', type: 'date', value: isoDay(today) },
      { name: 'tz', label: 'Time zone', value: Intl.DateTimeFormat().resolvedOptions().timeZone, hint: 'IANA name, e.g. Europe/Berlin' },
      { name: 'group_by', label: 'Group by', type: 'checkboxes', options: dims, value: ['day'] },
    ],
    async onSubmit(d) {
      const groups = checked(d, 'group_by') as Dimension[];
      last = { from: text(d, 'from'), to: text(d, 'to'), group_by: groups.join(','), tz: text(d, 'tz') };
      out.replaceChildren(h('p', { role: 'status', class: 'loading' }, 'Loading…'));
      show(await query(last), groups.length ? groups : ['day']);
    },
  });
  ctx.main.replaceChildren(h('h1', {}, publisher ? 'Earnings' : 'Statistics'), form, out);
  form.requestSubmit();
}
