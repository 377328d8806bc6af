import { api, problem } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, badge, h, notify, uid, usd } from '../dom.ts';
import { trafficChart } from '../chart.ts';
import { FIGURE_PERIODS, FIGURE_PERIOD_LABELS, figurePeriods, figuresOf } from '../campaign-figures.ts';
import type { Figures } from '../campaign-figures.ts';
import { dayIn } from '../date-range.ts';
import { count, cpm, percent, spend } from '../format.ts';
import { moderationWait } from '../moderation-wait.ts';
import { daysOf } from '../series.ts';
import { placementsSection } from './placements.ts';
import type { PageContext } from '../router.ts';
import { BASE } from '../router.ts';
import { deliveryText } from '../delivery-text.ts';
import { launchChecklist } from '../launch-checklist.ts';
import { creativesSection } from './creatives.ts';
import type { CreativeFigures } from './creatives.ts';
import { aiSection } from './ai.ts';
import { videoSection } from './video.ts';
import { trafficSourcesSection } from './traffic-sources.ts';
import { zoneBidsSection } from './zone-bids.ts';
import { rulesSection } from './rules.ts';

type Campaign = Outputs['adv']['campaigns']['get'];

export function stateButtons(c: Campaign, after: () => Promise<void>): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (c.status === 'draft' || c.status === 'paused') {
    out.push(
      actionButton(
        'Activate',
        async () => {
          const active = await api.adv.campaigns.activate.mutate({ id: c.id });
          // Active is not the same as serving: say what still holds it, and what happens next.
          if (active.delivery.reasons.includes('no_funds'))
            notify(
              `${c.name} is active but wins nothing until you add funds; it starts by itself once you do`,
              'error',
            );
          else if (!active.delivery.serving)
            notify(`${c.name} is active; ${deliveryText(active.delivery).toLowerCase()}`);
          else notify(`Campaign ${c.name} is active`);
          await after();
        },
        { 'aria-label': `Activate ${c.name}` },
      ),
    );
  }
  if (c.status === 'active') {
    out.push(
      actionButton(
        'Pause',
        async () => {
          await api.adv.campaigns.pause.mutate({ id: c.id });
          notify(`Campaign ${c.name} is paused`);
          await after();
        },
        { 'aria-label': `Pause ${c.name}` },
      ),
    );
  }
  return out;
}

function capScheduleSummary(c: Campaign): string {
  const parts = [
    c.frequency_cap ? `at most ${c.frequency_cap.impressions} per user in ${c.frequency_cap.period_hours} h` : '',
    c.start_at ? `from ${c.start_at}` : '',
    c.end_at ? `until ${c.end_at}` : '',
    c.dayparting ? `dayparted (${c.timezone})` : '',
  ].filter(Boolean);
  return parts.length ? ` · ${parts.join(' · ')}` : '';
}

/** How often an open campaign page looks for moderation results. */
const MODERATION_POLL_MS = 10_000;

/**
 * An open campaign page asks now and then for its creatives' states and re-renders when a
 * verdict arrives (uploads made on the page included), so the result shows without a reload. It
 * stops once the page is left.
 */
function watchModeration(ctx: PageContext, c: Campaign, marker: HTMLElement): void {
  if (c.status === 'archived') return;
  const states = async () =>
    new Map((await api.adv.creatives.list.query({ campaign_id: c.id })).creatives.map((x) => [x.id, x.status]));
  // What the page showed when it rendered; a creative uploaded since is new to it.
  const shown = states();
  const timer = setInterval(() => {
    if (!marker.isConnected) return clearInterval(timer);
    void Promise.all([shown, states()])
      .then(async ([before, now]) => {
        // A verdict: a waiting creative decided, or one uploaded since and already decided.
        const decided = [...now].some(
          ([id, st]) =>
            st !== 'pending_moderation' && (before.get(id) ?? 'pending_moderation') === 'pending_moderation',
        );
        if (!decided || !marker.isConnected) return;
        clearInterval(timer);
        notify('Moderation finished for a creative of this campaign');
        await campaignPage(ctx);
      })
      .catch(() => undefined);
  }, MODERATION_POLL_MS);
}

type Update = Parameters<typeof api.adv.campaigns.update.mutate>[0];

/** The figures as tiles: today large, yesterday and the seven days beneath, each cell marked for tests and styles. */
function figureTiles(all: Record<(typeof FIGURE_PERIODS)[number], Figures>): HTMLElement {
  const tiles: [string, keyof Figures, (f: Figures) => string][] = [
    ['Impressions', 'impressions', (f) => count(f.impressions)],
    ['Clicks', 'clicks', (f) => count(f.clicks)],
    ['CTR', 'ctr', (f) => percent(f.ctr)],
    ['Spend', 'spent_nano', (f) => spend(f.spent_nano)],
    ['Conversions', 'conversions', (f) => count(f.conversions)],
    ['eCPA', 'ecpa_nano', (f) => (f.ecpa_nano === null ? '–' : spend(f.ecpa_nano))],
  ];
  return h(
    'div',
    { class: 'tiles', role: 'group', 'aria-label': 'Figures: today, yesterday, 7 days' },
    tiles.map(([label, key, text]) =>
      h(
        'div',
        { class: 'tile', 'data-figure': key },
        h('span', { class: 'tile-label' }, label),
        h('strong', { class: 'tile-value', 'data-period': 'today' }, text(all.today)),
        h(
          'small',
          {},
          `${FIGURE_PERIOD_LABELS.yesterday.toLowerCase()} `,
          h('span', { 'data-period': 'yesterday' }, text(all.yesterday)),
          ` · ${FIGURE_PERIOD_LABELS.last_7_days} `,
          h('span', { 'data-period': 'last_7_days' }, text(all.last_7_days)),
        ),
      ),
    ),
  );
}

/**
 * A setting shown as its value with an Edit button; editing opens a one-field form that saves through the campaign
 * update API and shows its 400 beside the field.
 */
function inlineEdit(o: {
  label: string;
  shown: string;
  field: 'bid_usd' | 'daily_budget_usd';
  value: string;
  save: (value: number) => Promise<void>;
}): HTMLElement {
  const box = h('div', { class: 'inline-edit', 'data-setting': o.field });
  const view = () =>
    box.replaceChildren(
      h('span', { class: 'tile-label' }, o.label),
      h('strong', { class: 'setting-value' }, o.shown),
      h('button', { type: 'button', 'aria-label': `Edit ${o.label.toLowerCase()}`, onclick: edit }, 'Edit'),
    );
  const edit = () => {
    const id = uid(o.field);
    const errId = `${id}-error`;
    const input = h('input', {
      id,
      name: o.field,
      type: 'number',
      step: 'any',
      min: '0',
      inputmode: 'decimal',
      value: o.value,
      'aria-describedby': errId,
    });
    const error = h('p', { id: errId, class: 'field-error', role: 'alert' });
    const form = h(
      'form',
      { 'aria-label': o.label, novalidate: true },
      h('label', { for: id, class: 'tile-label' }, `${o.label} (USD)`),
      input,
      h('button', { type: 'submit', class: 'primary' }, 'Save'),
      h('button', { type: 'button', onclick: view }, 'Cancel'),
      error,
    );
    form.addEventListener('submit', (e) => {
      e.preventDefault();
      form.setAttribute('aria-busy', 'true');
      void o
        .save(Number(input.value))
        .catch((err: unknown) => {
          const p = problem(err);
          error.textContent = p.fields[o.field] ?? p.message;
          input.setAttribute('aria-invalid', 'true');
          input.focus();
        })
        .finally(() => form.removeAttribute('aria-busy'));
    });
    box.replaceChildren(form);
    input.focus();
  };
  view();
  return box;
}

/** Campaigns' bids in dollars, as the builder shows them: per thousand impressions (CPM) or per click (CPC). */
const bidUsd = (c: Campaign): number => c.bid_micro_cents / 100_000;
const bidText = (c: Campaign): string =>
  c.bid_type === 'cpc' ? `${cpm(bidUsd(c)).replace(' CPM', '')} per click` : cpm(bidUsd(c));

/**
 * The delivery line and the launch checklist, asked of the API again: after an upload, a creative's state change or
 * a verdict they follow without a reload, from the same campaign status the API answers.
 */
async function statusBlock(id: number): Promise<HTMLElement[]> {
  const [c, { creatives }, wait] = await Promise.all([
    api.adv.campaigns.get.query({ id }),
    api.adv.creatives.list.query({ campaign_id: id }),
    moderationWait(),
  ]);
  return [
    h('p', { class: 'delivery', 'aria-live': 'polite' }, deliveryText(c.delivery)),
    launchChecklist(c, creatives, wait),
  ];
}

export async function campaignPage(ctx: PageContext): Promise<void> {
  const id = Number(ctx.params.id);
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const periods = figurePeriods(dayIn(Date.now(), tz));
  const stats = (group_by: string) =>
    api.adv.stats.get.query({ ...periods.range, tz, group_by, campaign_id: id }).then((r) => r.rows);
  const [c, byDay, byCreative, byZone, status] = await Promise.all([
    api.adv.campaigns.get.query({ id }),
    stats('day'),
    stats('creative'),
    stats('zone'),
    statusBlock(id),
  ]);
  const rerender = () => campaignPage(ctx);
  const all = Object.fromEntries(FIGURE_PERIODS.map((p) => [p, figuresOf(byDay, periods[p])])) as Record<
    (typeof FIGURE_PERIODS)[number],
    Figures
  >;
  const statusBox = h('div', { class: 'campaign-status' }, ...status);
  const refreshStatus = async () => statusBox.replaceChildren(...(await statusBlock(id)));
  const creativeFigures = new Map<number, CreativeFigures>(
    byCreative.map((r) => [
      Number(r.creative_id),
      { impressions: r.impressions, clicks: r.clicks, spent_nano: r.spent_nano },
    ]),
  );
  const save = async (patch: Omit<Update, 'id'>, what: string) => {
    await api.adv.campaigns.update.mutate({ id: c.id, ...patch });
    notify(`${what} saved`);
    await rerender();
  };
  ctx.main.replaceChildren(
    h('p', {}, h('a', { href: `${BASE}/campaigns` }, '← Campaigns')),
    h('div', { class: 'title-row' }, h('h1', {}, c.name), badge(c.status), ...stateButtons(c, rerender)),
    h(
      'p',
      {},
      `${c.format.replace(/_/g, ' ')} · spent today ${spend(c.daily_spent_nano)} of ${usd(c.daily_budget_cents)}${capScheduleSummary(c)}`,
    ),
    h(
      'section',
      { 'aria-labelledby': 'figures-h', id: 'figures' },
      h('h2', { id: 'figures-h' }, 'Figures'),
      figureTiles(all),
      trafficChart(daysOf(periods.range.from, periods.range.to), byDay, 'Impressions and clicks, last 7 days'),
    ),
    h(
      'div',
      { class: 'settings-row' },
      inlineEdit({
        label: c.bid_type === 'cpc' ? 'Bid (CPC)' : 'Bid (CPM)',
        shown: bidText(c),
        field: 'bid_usd',
        value: String(bidUsd(c)),
        save: (v) => save({ bid_usd: v }, 'Bid'),
      }),
      inlineEdit({
        label: 'Daily budget',
        shown: usd(c.daily_budget_cents),
        field: 'daily_budget_usd',
        value: String(c.daily_budget_cents / 100),
        save: (v) => save({ daily_budget_usd: v }, 'Daily budget'),
      }),
      h('a', { href: `${BASE}/campaigns/${c.id}/edit`, class: 'button' }, 'Edit settings'),
    ),
    statusBox,
    await creativesSection(c, creativeFigures, refreshStatus),
    await placementsSection(c, byZone, rerender),
    await trafficSourcesSection(c, rerender),
    ...(await zoneBidsSection(c)),
    await rulesSection(c, rerender),
    aiSection(c),
    videoSection(c),
  );
  watchModeration(ctx, c, ctx.main.firstElementChild as HTMLElement);
}
