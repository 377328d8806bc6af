import { api } from '../api.ts';
import type { Inputs, Outputs } from '../api.ts';
import {
  BID_TYPES,
  BROWSERS,
  CONNECTIONS,
  DEVICES,
  FORMATS,
  OSES,
  PACINGS,
  ROTATIONS,
  VERTICALS,
  WEEKDAYS,
} from '../choices.ts';
import { actionButton, badge, h, notify, usd } from '../dom.ts';
import { buildForm, checked, list, num, optNum, text } from '../form.ts';
import type { FieldSpec } from '../form.ts';
import type { PageContext } from '../router.ts';
import { BASE, navigate } from '../router.ts';
import { countriesField } from '../countries.ts';
import { deliveryText } from '../delivery-text.ts';
import { attachEstimate } from '../estimate-panel.ts';
import { launchChecklist } from '../launch-checklist.ts';
import { creativesSection } from './creatives.ts';
import { aiSection } from './ai.ts';
import { videoSection } from './video.ts';
import { trafficSourcesSection } from './traffic-sources.ts';
import { zoneBidsSection } from './zone-bids.ts';
import { rulesSection } from './rules.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type CampaignIn = Inputs['adv']['campaigns']['create'];

const bidUsd = (c: Campaign) => String(c.bid_micro_cents / 100_000);

function campaignFields(c?: Campaign): FieldSpec[] {
  return [
    { name: 'name', label: 'Name', required: true, value: c?.name },
    { name: 'vertical', label: 'Vertical', type: 'select', options: VERTICALS, value: c?.vertical },
    ...(c
      ? []
      : [
          {
            name: 'format',
            label: 'Format',
            type: 'select' as const,
            options: FORMATS,
            hint: 'Fixed once the campaign exists',
          },
        ]),
    { name: 'bid_type', label: 'Bid type', type: 'select', options: BID_TYPES, value: c?.bid_type },
    {
      name: 'bid_usd',
      label: 'Bid (USD; CPM per thousand impressions, CPC per click)',
      type: 'number',
      step: 'any',
      required: true,
      value: c ? bidUsd(c) : undefined,
    },
    {
      name: 'daily_budget_usd',
      label: 'Daily budget (USD)',
      type: 'number',
      step: 'any',
      required: true,
      value: c ? String(c.daily_budget_cents / 100) : undefined,
    },
    {
      name: 'total_budget_usd',
      label: 'Total budget (USD, all days; empty = none)',
      type: 'number',
      step: 'any',
      value: c?.total_budget_cents != null ? String(c.total_budget_cents / 100) : undefined,
    },
    {
      name: 'pacing',
      label: 'Pacing',
      type: 'select',
      options: PACINGS,
      value: c?.pacing,
      hint: 'even: the daily budget spread over the day; asap: as fast as traffic allows',
    },
    {
      name: 'rotation',
      label: 'Creative rotation',
      type: 'select',
      options: ROTATIONS,
      value: c?.rotation,
      hint: 'optimize: more traffic to what people click; weighted: by each creative’s weight',
    },
    countriesField('geo_include', 'Countries (none chosen = all)', c?.geo_include),
    { name: 'languages', label: 'Languages (ISO 639-1, comma-separated; empty = all)', value: c?.languages.join(', ') },
    {
      name: 'device_types',
      label: 'Devices (none checked = all)',
      type: 'checkboxes',
      options: DEVICES,
      value: c?.device_types,
    },
    {
      name: 'os_include',
      label: 'Operating systems (none checked = all)',
      type: 'checkboxes',
      options: OSES,
      value: c?.os_include,
    },
    {
      name: 'browser_include',
      label: 'Browsers (none checked = all)',
      type: 'checkboxes',
      options: BROWSERS,
      value: c?.browser_include,
    },
    {
      name: 'connection_types',
      label: 'Connection types (none checked = all; partners’ traffic only, our own zones do not know it)',
      type: 'checkboxes',
      options: CONNECTIONS,
      value: c?.connection_types,
    },
    ...capScheduleFields(c),
    ...(c && !OPTS_IN.has(c.format) ? [] : [interstitialField(c)]),
  ];
}

// ---- interstitial opt-in (docs/delivery.md, interstitials): banner and native campaigns only

const OPTS_IN: ReadonlySet<string> = new Set(['banner', 'native']);
const INTERSTITIAL_OPT_IN = 'Also show my ads full-page in interstitial zones';
const interstitialField = (c?: Campaign): FieldSpec => ({
  name: 'interstitial',
  label: 'Interstitials',
  type: 'checkboxes',
  options: [INTERSTITIAL_OPT_IN],
  value: c?.interstitial ? [INTERSTITIAL_OPT_IN] : [],
  hint: 'Banner and native campaigns: the same creative, centred on a full-page overlay that the visitor closes',
});
const interstitialInput = (d: FormData): boolean => checked(d, 'interstitial').length > 0;
/** On a new campaign's form the opt-in shows for the formats that take it. */
function syncInterstitialField(form: HTMLFormElement): void {
  const format = form.querySelector<HTMLSelectElement>('select[name=format]');
  const row = form.querySelector<HTMLElement>('[data-field="interstitial"]');
  if (!format || !row) return;
  const sync = () => (row.hidden = !OPTS_IN.has(format.value));
  format.addEventListener('change', sync);
  sync();
}

// ---- frequency cap and schedule (docs/delivery.md)

function capScheduleFields(c?: Campaign): FieldSpec[] {
  const cap = c?.frequency_cap;
  return [
    {
      name: 'frequency_cap.impressions',
      label: 'Frequency cap: ads per user (empty = no cap)',
      type: 'number',
      value: cap ? String(cap.impressions) : undefined,
    },
    {
      name: 'frequency_cap.period_hours',
      label: 'Frequency cap: within hours',
      type: 'number',
      value: cap ? String(cap.period_hours) : undefined,
    },
    {
      name: 'start_at',
      label: 'Start (empty = now)',
      value: c?.start_at ?? undefined,
      hint: 'ISO 8601 with offset, e.g. 2026-12-01T09:00:00+01:00',
    },
    { name: 'end_at', label: 'End (empty = none)', value: c?.end_at ?? undefined },
    {
      name: 'timezone',
      label: 'Time zone of the hours below',
      value: c?.timezone ?? 'UTC',
      hint: 'IANA name, e.g. Europe/Berlin',
    },
    ...WEEKDAYS.map((d) => ({
      name: `dayparting.${d}`,
      label: `Hours on ${d}`,
      value: c?.dayparting?.[d]?.join(', '),
      hint: d === 'mon' ? 'e.g. 9-17, 20; leave every day empty to serve around the clock' : undefined,
    })),
  ];
}

/** `9-17, 20` as [9, 10, ..., 17, 20]; anything else goes as typed, for the API to name. */
function hours(typed: string): number[] {
  return typed
    .split(/[\s,]+/)
    .filter(Boolean)
    .flatMap((t) => {
      const range = /^(\d{1,2})-(\d{1,2})$/.exec(t);
      if (!range) return [Number(t)];
      const [from, to] = [Number(range[1]), Number(range[2])];
      return to >= from && to - from < 24 ? Array.from({ length: to - from + 1 }, (_, i) => from + i) : [NaN];
    });
}

function capScheduleInput(d: FormData) {
  const impressions = text(d, 'frequency_cap.impressions');
  const periodHours = text(d, 'frequency_cap.period_hours');
  const days = WEEKDAYS.map((w) => [w, hours(text(d, `dayparting.${w}`))] as const).filter(([, h]) => h.length > 0);
  return {
    frequency_cap:
      impressions === '' && periodHours === ''
        ? null
        : { impressions: num(d, 'frequency_cap.impressions'), period_hours: num(d, 'frequency_cap.period_hours') },
    start_at: text(d, 'start_at') || null,
    end_at: text(d, 'end_at') || null,
    dayparting: days.length ? Object.fromEntries(days) : null,
    timezone: text(d, 'timezone') || 'UTC',
  };
}

/** Form values in the API's shape; the API does the validation and names the fields. */
function campaignInput(d: FormData) {
  return {
    name: text(d, 'name'),
    vertical: text(d, 'vertical') as CampaignIn['vertical'],
    bid_type: text(d, 'bid_type') as CampaignIn['bid_type'],
    bid_usd: num(d, 'bid_usd'),
    daily_budget_usd: num(d, 'daily_budget_usd'),
    pacing: text(d, 'pacing') as CampaignIn['pacing'],
    rotation: text(d, 'rotation') as CampaignIn['rotation'],
    geo_include: checked(d, 'geo_include'),
    languages: list(d, 'languages'),
    device_types: checked(d, 'device_types') as CampaignIn['device_types'],
    os_include: checked(d, 'os_include') as CampaignIn['os_include'],
    browser_include: checked(d, 'browser_include') as CampaignIn['browser_include'],
    connection_types: checked(d, 'connection_types') as CampaignIn['connection_types'],
    ...capScheduleInput(d),
  };
}

/** The form's targeting and bid, as the traffic estimate takes them. */
function estimateInput(d: FormData, format: CampaignIn['format']): Inputs['adv']['estimate']['get'] {
  const c = campaignInput(d);
  return {
    format,
    bid_type: c.bid_type,
    bid_usd: c.bid_usd,
    daily_budget_usd: c.daily_budget_usd,
    geo_include: c.geo_include,
    languages: c.languages,
    device_types: c.device_types,
    os_include: c.os_include,
    browser_include: c.browser_include,
    connection_types: c.connection_types,
    frequency_cap: c.frequency_cap,
    dayparting: c.dayparting,
    timezone: c.timezone,
  };
}

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

export function newCampaignPage(ctx: PageContext): void {
  const { form } = buildForm({
    label: 'New campaign',
    submit: 'Create campaign',
    fields: campaignFields(),
    async onSubmit(d) {
      const c = await api.adv.campaigns.create.mutate({
        ...campaignInput(d),
        total_budget_usd: optNum(d, 'total_budget_usd'),
        format: text(d, 'format') as CampaignIn['format'],
        ...(OPTS_IN.has(text(d, 'format')) ? { interstitial: interstitialInput(d) } : {}),
      });
      notify(`Campaign ${c.name} created`);
      navigate(`/campaigns/${c.id}`);
    },
  });
  syncInterstitialField(form);
  attachEstimate(form, () => {
    const d = new FormData(form);
    return estimateInput(d, text(d, 'format') as CampaignIn['format']);
  });
  ctx.main.replaceChildren(h('h1', {}, 'New campaign'), form);
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

export async function campaignPage(ctx: PageContext): Promise<void> {
  const id = Number(ctx.params.id);
  const c = await api.adv.campaigns.get.query({ id });
  const { form } = buildForm({
    label: 'Edit campaign',
    submit: 'Save changes',
    fields: campaignFields(c),
    async onSubmit(d) {
      // Emptied: the cap is removed.
      await api.adv.campaigns.update.mutate({
        id,
        ...campaignInput(d),
        total_budget_usd: optNum(d, 'total_budget_usd') ?? null,
        ...(OPTS_IN.has(c.format) ? { interstitial: interstitialInput(d) } : {}),
      });
      notify('Campaign saved');
      await campaignPage(ctx);
    },
  });
  // The campaign's own source list narrows its estimate as it narrows its traffic.
  attachEstimate(form, () => ({ ...estimateInput(new FormData(form), c.format), sources: c.sources }));
  ctx.main.replaceChildren(
    h('p', {}, h('a', { href: `${BASE}/campaigns` }, '← Campaigns')),
    h('div', { class: 'title-row' }, h('h1', {}, c.name), badge(c.status), ...stateButtons(c, () => campaignPage(ctx))),
    h(
      'p',
      {},
      `${c.format.replace(/_/g, ' ')} · spent today ${usd(c.daily_spent_cents)} of ${usd(c.daily_budget_cents)}${capScheduleSummary(c)}`,
    ),
    h('p', { class: 'delivery', 'aria-live': 'polite' }, deliveryText(c.delivery)),
    launchChecklist(c),
    h('details', {}, h('summary', {}, 'Edit settings'), form),
    await creativesSection(c),
    await trafficSourcesSection(c, () => campaignPage(ctx)),
    ...(await zoneBidsSection(c)),
    await rulesSection(c, () => campaignPage(ctx)),
    aiSection(c),
    videoSection(c),
  );
  watchModeration(ctx, c, ctx.main.firstElementChild as HTMLElement);
}
