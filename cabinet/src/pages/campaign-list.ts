import { api } from '../api.ts';
import { countryName } from '../countries.ts';
import type { Outputs } from '../api.ts';
import { FORMATS } from '../choices.ts';
import { PRESETS, PRESET_LABELS, presetRange } from '../date-range.ts';
import type { Preset } from '../date-range.ts';
import { deliveryText } from '../delivery-text.ts';
import { actionButton, badge, h, notify } from '../dom.ts';
import { count, ctrOf, ecpaCents, money, percent, spend } from '../format.ts';
import { grid } from '../grid.ts';
import type { Column } from '../grid.ts';
import type { PageContext } from '../router.ts';
import { BASE, navigate } from '../router.ts';
import { stateButtons } from './campaigns.ts';

type Campaign = Outputs['adv']['campaigns']['list']['campaigns'][number];
interface Perf {
  impressions: number;
  clicks: number;
  spent_cents: number;
  spent_nano: number;
  conversions: number;
}
type Row = Campaign & Perf;

const STATUSES = ['draft', 'active', 'paused', 'archived'] as const;
const ZERO: Perf = { impressions: 0, clicks: 0, spent_cents: 0, spent_nano: 0, conversions: 0 };

/** Page state kept in the URL, so a filtered view can be bookmarked and survives a reload. */
function readState(): { range: Preset; status: string; format: string; country: string } {
  const q = new URLSearchParams(location.search);
  const range = q.get('range') as Preset | null;
  return {
    range: range && (PRESETS as readonly string[]).includes(range) ? range : 'last_7_days',
    status: q.get('status') ?? 'live',
    format: q.get('format') ?? '',
    country: (q.get('country') ?? '').toLowerCase(),
  };
}

/** A labelled select named `name`, showing `value` of `options` ([value, text] pairs). */
function select(
  label: string,
  name: string,
  { value, options, onchange }: { value: string; options: [string, string][]; onchange: (v: string) => void },
): HTMLElement {
  return h(
    'label',
    {},
    label,
    h(
      'select',
      { name, onchange: (ev: Event) => onchange((ev.target as HTMLSelectElement).value) },
      options.map(([v, text]) => h('option', { value: v, selected: v === value }, text)),
    ),
  );
}

const sum = (rows: Row[], k: keyof Perf) => rows.reduce((a, r) => a + r[k], 0);

/**
 * The campaign list as a performance grid: each campaign's figures in the chosen range beside its
 * delivery, sortable and filterable, with the everyday moves inline and in bulk.
 */
export async function campaignsPage(ctx: PageContext): Promise<void> {
  const state = readState();
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const { from, to } = presetRange(state.range, Date.now(), tz);
  const [{ campaigns }, stats] = await Promise.all([
    api.adv.campaigns.list.query(),
    api.adv.stats.get.query({ from, to, group_by: 'campaign', tz }),
  ]);
  const perf = new Map(stats.rows.map((r) => [r.campaign_id, r]));
  const rows: Row[] = campaigns
    .filter((c) =>
      state.status === 'live' ? c.status !== 'archived' : state.status === '' || c.status === state.status,
    )
    .filter((c) => state.format === '' || c.format === state.format)
    .filter((c) => state.country === '' || c.geo_include.length === 0 || c.geo_include.includes(state.country))
    .map((c) => {
      const p = perf.get(c.id);
      return {
        ...c,
        ...(p
          ? {
              impressions: p.impressions,
              clicks: p.clicks,
              spent_cents: p.spent_cents,
              spent_nano: p.spent_nano,
              conversions: p.conversions,
            }
          : ZERO),
      };
    });
  const rerender = () => campaignsPage(ctx);
  const setParam = (k: string, v: string) => {
    const q = new URLSearchParams(location.search);
    if (v) q.set(k, v);
    else q.delete(k);
    navigate(`/campaigns${q.size ? `?${q}` : ''}`);
  };

  let chosen: string[] = [];
  const bulkNote = h('span', { 'aria-live': 'polite' }, 'Select campaigns for bulk actions');
  const bulk = (label: string, action: 'activate' | 'pause' | 'archive', danger = false) =>
    actionButton(
      label,
      async () => {
        if (!chosen.length) return notify('Select at least one campaign', 'error');
        if (action === 'archive' && !confirm(`Archive ${chosen.length} campaign(s)? Archiving is final.`)) return;
        const results = await Promise.allSettled(
          chosen.map((id) => api.adv.campaigns[action].mutate({ id: Number(id) })),
        );
        const failed = results.filter((r) => r.status === 'rejected').length;
        notify(
          failed
            ? `${results.length - failed} done, ${failed} refused (see each campaign's status)`
            : `${results.length} campaign(s): ${action} done`,
          failed ? 'error' : 'ok',
        );
        await rerender();
      },
      { class: danger ? 'danger' : null },
    );

  const columns: Column<Row>[] = [
    {
      key: 'name',
      label: 'Campaign',
      sort: (r) => r.name.toLowerCase(),
      cell: (r) => h('a', { href: `${BASE}/campaigns/${r.id}`, title: r.name }, r.name),
    },
    { key: 'status', label: 'Status', sort: (r) => r.status, cell: (r) => badge(r.status) },
    {
      key: 'delivery',
      label: 'Delivery',
      sort: (r) => (r.delivery.serving ? 0 : 1),
      cell: (r) =>
        h(
          'span',
          {
            class: r.delivery.serving ? 'ok' : r.status === 'active' ? 'warn' : 'muted',
            title: deliveryText(r.delivery),
          },
          deliveryText(r.delivery),
        ),
    },
    { key: 'format', label: 'Format', sort: (r) => r.format, cell: (r) => r.format.replace(/_/g, ' ') },
    {
      key: 'budget',
      label: 'Daily budget',
      numeric: true,
      sort: (r) => r.daily_budget_cents,
      cell: (r) => money(r.daily_budget_cents),
    },
    {
      key: 'today',
      label: 'Spent today',
      numeric: true,
      sort: (r) => r.daily_spent_nano,
      cell: (r) => spend(r.daily_spent_nano),
    },
    {
      key: 'impressions',
      label: 'Impressions',
      numeric: true,
      sort: (r) => r.impressions,
      cell: (r) => count(r.impressions),
      total: (rs) => count(sum(rs, 'impressions')),
    },
    {
      key: 'clicks',
      label: 'Clicks',
      numeric: true,
      sort: (r) => r.clicks,
      cell: (r) => count(r.clicks),
      total: (rs) => count(sum(rs, 'clicks')),
    },
    {
      key: 'ctr',
      label: 'CTR',
      numeric: true,
      sort: (r) => ctrOf(r.clicks, r.impressions),
      cell: (r) => percent(ctrOf(r.clicks, r.impressions)),
      total: (rs) => percent(ctrOf(sum(rs, 'clicks'), sum(rs, 'impressions'))),
    },
    {
      key: 'spend',
      label: 'Spend',
      numeric: true,
      sort: (r) => r.spent_cents,
      cell: (r) => spend(r.spent_nano),
      total: (rs) => spend(sum(rs, 'spent_nano')),
    },
    {
      key: 'conversions',
      label: 'Conversions',
      numeric: true,
      sort: (r) => r.conversions,
      cell: (r) => count(r.conversions),
      total: (rs) => count(sum(rs, 'conversions')),
    },
    {
      key: 'ecpa',
      label: 'eCPA',
      numeric: true,
      sort: (r) => ecpaCents(r.spent_cents, r.conversions),
      cell: (r) => {
        const v = ecpaCents(r.spent_cents, r.conversions);
        return v === null ? '–' : money(v);
      },
      total: (rs) => {
        const v = ecpaCents(sum(rs, 'spent_cents'), sum(rs, 'conversions'));
        return v === null ? '–' : money(v);
      },
    },
    {
      key: 'actions',
      label: '',
      cell: (r) =>
        h(
          'span',
          { class: 'row-actions' },
          stateButtons(r, rerender),
          actionButton(
            'Duplicate',
            async () => {
              const copy = await api.adv.campaigns.duplicate.mutate({ id: r.id });
              notify(`Copied as ${copy.name} (draft)`);
              navigate(`/campaigns/${copy.id}`);
            },
            { 'aria-label': `Duplicate ${r.name}` },
          ),
          r.status === 'archived'
            ? null
            : actionButton(
                'Archive',
                async () => {
                  if (!confirm(`Archive ${r.name}? Archiving is final.`)) return;
                  await api.adv.campaigns.archive.mutate({ id: r.id });
                  notify(`Campaign ${r.name} archived`);
                  await rerender();
                },
                { class: 'danger', 'aria-label': `Archive ${r.name}` },
              ),
        ),
    },
  ];

  ctx.main.replaceChildren(
    h(
      'div',
      { class: 'title-row' },
      h('h1', {}, 'Campaigns'),
      h('a', { class: 'button primary', href: `${BASE}/campaigns/new` }, 'New campaign'),
    ),
    h(
      'div',
      { class: 'filters', role: 'group', 'aria-label': 'Filters' },
      select('Range', 'range', {
        value: state.range,
        options: PRESETS.map((p) => [p, PRESET_LABELS[p]]),
        onchange: (v) => setParam('range', v),
      }),
      select('Status', 'status', {
        value: state.status,
        options: [['live', 'All but archived'], ['', 'All'], ...STATUSES.map((s): [string, string] => [s, s])],
        onchange: (v) => setParam('status', v),
      }),
      select('Format', 'format', {
        value: state.format,
        options: [['', 'All formats'], ...FORMATS.map((f): [string, string] => [f, f.replace(/_/g, ' ')])],
        onchange: (v) => setParam('format', v),
      }),
      // The countries the campaigns target, by name: a filter offers only what can match.
      select('Country', 'country', {
        value: state.country,
        options: [
          ['', 'All countries'],
          ...[...new Set([...campaigns.flatMap((c) => c.geo_include), ...(state.country ? [state.country] : [])])]
            .map((code): [string, string] => [code, countryName(code)])
            .sort((a, b) => a[1].localeCompare(b[1])),
        ],
        onchange: (v) => setParam('country', v),
      }),
    ),
    h(
      'div',
      { class: 'bulk', role: 'group', 'aria-label': 'Bulk actions' },
      bulkNote,
      bulk('Activate selected', 'activate'),
      bulk('Pause selected', 'pause'),
      bulk('Archive selected', 'archive', true),
    ),
    grid({
      caption: `Your campaigns, ${PRESET_LABELS[state.range].toLowerCase()} (${from} to ${to})`,
      columns,
      rows,
      id: (r) => String(r.id),
      sortBy: { key: 'spend', dir: 'desc' },
      onSelect: (ids) => {
        chosen = ids;
        bulkNote.textContent = ids.length ? `${ids.length} selected` : 'Select campaigns for bulk actions';
      },
      empty: campaigns.length
        ? 'No campaign matches these filters'
        : h('span', {}, 'No campaigns yet. ', h('a', { href: `${BASE}/campaigns/new` }, 'Create your first campaign')),
    }),
  );
}
