import { api } from '../api.ts';
import type { Inputs, Outputs } from '../api.ts';
import { BID_TYPES, DEVICES, FORMATS, VERTICALS } from '../choices.ts';
import { actionButton, badge, h, notify, table, usd } from '../dom.ts';
import { buildForm, checked, list, num, text } from '../form.ts';
import type { FieldSpec } from '../form.ts';
import type { PageContext } from '../router.ts';
import { BASE, navigate } from '../router.ts';
import { creativesSection } from './creatives.ts';
import { aiSection } from './ai.ts';
import { videoSection } from './video.ts';

type Campaign = Outputs['adv']['campaigns']['get'];

const bidUsd = (c: Campaign) => String(c.bid_micro_cents / 100_000);

function campaignFields(c?: Campaign): FieldSpec[] {
  return [
    { name: 'name', label: 'Name', required: true, value: c?.name },
    { name: 'vertical', label: 'Vertical', type: 'select', options: VERTICALS, value: c?.vertical },
    ...(c ? [] : [{ name: 'format', label: 'Format', type: 'select' as const, options: FORMATS, hint: 'Fixed once the campaign exists' }]),
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
    { name: 'geo_include', label: 'Countries (ISO codes, comma-separated; empty = all)', value: c?.geo_include.join(', '), hint: 'e.g. us, de' },
    { name: 'languages', label: 'Languages (ISO 639-1, comma-separated; empty = all)', value: c?.languages.join(', ') },
    { name: 'device_types', label: 'Devices (none checked = all)', type: 'checkboxes', options: DEVICES, value: c?.device_types },
  ];
}

/** Form values in the API's shape; the API does the validation and names the fields. */
function campaignInput(d: FormData) {
  return {
    name: text(d, 'name'),
    vertical: text(d, 'vertical') as Inputs['adv']['campaigns']['create']['vertical'],
    bid_type: text(d, 'bid_type') as Inputs['adv']['campaigns']['create']['bid_type'],
    bid_usd: num(d, 'bid_usd'),
    daily_budget_usd: num(d, 'daily_budget_usd'),
    geo_include: list(d, 'geo_include'),
    languages: list(d, 'languages'),
    device_types: checked(d, 'device_types') as Inputs['adv']['campaigns']['create']['device_types'],
  };
}

function stateButtons(c: Campaign, after: () => Promise<void>): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (c.status === 'draft' || c.status === 'paused') {
    out.push(
      actionButton(
        'Activate',
        async () => {
          await api.adv.campaigns.activate.mutate({ id: c.id });
          notify(`Campaign ${c.name} is active`);
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

export async function campaignsPage(ctx: PageContext): Promise<void> {
  const { campaigns } = await api.adv.campaigns.list.query();
  const rerender = () => campaignsPage(ctx);
  ctx.main.replaceChildren(
    h('div', { class: 'title-row' }, h('h1', {}, 'Campaigns'), h('a', { class: 'button', href: `${BASE}/campaigns/new` }, 'New campaign')),
    table(
      ['Name', 'Format', 'Status', 'Daily budget', 'Spent today', ''],
      campaigns.map((c) => [
        h('a', { href: `${BASE}/campaigns/${c.id}` }, c.name),
        c.format.replace(/_/g, ' '),
        badge(c.status),
        usd(c.daily_budget_cents),
        usd(c.daily_spent_cents),
        h('span', { class: 'row-actions' }, stateButtons(c, rerender)),
      ]),
      'Your campaigns',
    ),
  );
}

export function newCampaignPage(ctx: PageContext): void {
  const { form } = buildForm({
    label: 'New campaign',
    submit: 'Create campaign',
    fields: campaignFields(),
    async onSubmit(d) {
      const c = await api.adv.campaigns.create.mutate({ ...campaignInput(d), format: text(d, 'format') as Inputs['adv']['campaigns']['create']['format'] });
      notify(`Campaign ${c.name} created`);
      navigate(`/campaigns/${c.id}`);
    },
  });
  ctx.main.replaceChildren(h('h1', {}, 'New campaign'), form);
}

export async function campaignPage(ctx: PageContext): Promise<void> {
  const id = Number(ctx.params.id);
  const c = await api.adv.campaigns.get.query({ id });
  const { form } = buildForm({
    label: 'Edit campaign',
    submit: 'Save changes',
    fields: campaignFields(c),
    async onSubmit(d) {
      await api.adv.campaigns.update.mutate({ id, ...campaignInput(d) });
      notify('Campaign saved');
      await campaignPage(ctx);
    },
  });
  ctx.main.replaceChildren(
    h('p', {}, h('a', { href: `${BASE}/campaigns` }, '← Campaigns')),
    h('div', { class: 'title-row' }, h('h1', {}, c.name), badge(c.status), ...stateButtons(c, () => campaignPage(ctx))),
    h('p', {}, `${c.format.replace(/_/g, ' ')} · spent today ${usd(c.daily_spent_cents)} of ${usd(c.daily_budget_cents)}`),
    h('details', {}, h('summary', {}, 'Edit settings'), form),
    await creativesSection(c),
    aiSection(c),
    videoSection(c),
  );
}
