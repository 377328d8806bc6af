import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, h, notify, table } from '../dom.ts';
import { cpm } from '../format.ts';
import { buildForm, checked, num, text } from '../form.ts';
import type { FieldSpec } from '../form.ts';
import type { PageContext } from '../router.ts';

type Deal = Outputs['admin']['listDeals']['deals'][number];

/** Partners and campaigns by name, for the pickers and the deals' summaries. */
interface Names {
  partners: Map<string, string>;
  campaigns: Map<string, string>;
}

const ids = (d: FormData, name: string): number[] => checked(d, name).map(Number);
const named = (names: Map<string, string>) => (id: string) => names.get(id) ?? `#${id}`;

/** The two pickers, with what the deal has chosen first. */
function pickers(names: Names, deal?: Deal): FieldSpec[] {
  const field = (name: string, label: string, all: Map<string, string>, chosen: readonly number[] = []): FieldSpec => ({
    name,
    label,
    type: 'picker',
    // A deal may name one the list no longer holds: it stays choosable.
    options: [...new Set([...all.keys(), ...chosen.map(String)])],
    optionLabel: named(all),
    value: chosen.map(String),
    hint: 'Type part of a name or an id to find it',
  });
  return [
    field('partner_ids', 'Partners', names.partners, deal?.partner_ids),
    field('campaign_ids', 'Campaigns', names.campaigns, deal?.campaign_ids),
  ];
}

function dealRow(deal: Deal, names: Names, after: () => Promise<void>) {
  const edit = buildForm({
    label: `Edit deal ${deal.id}`,
    submit: 'Save',
    fields: [
      { name: 'floor_usd', label: 'Floor (CPM, USD)', type: 'number', step: '0.00001', value: String(deal.floor_usd) },
      ...pickers(names, deal),
    ],
    async onSubmit(d) {
      await api.admin.updateDeal.mutate({
        id: deal.id,
        floor_usd: num(d, 'floor_usd'),
        partner_ids: ids(d, 'partner_ids'),
        campaign_ids: ids(d, 'campaign_ids'),
      });
      notify(`Deal ${deal.id} saved`);
      await after();
    },
  });
  return [
    h('code', {}, deal.id),
    cpm(deal.floor_usd),
    h(
      'details',
      {},
      h(
        'summary',
        {},
        `partners ${deal.partner_ids.map(String).map(named(names.partners)).join(', ')} · campaigns ${deal.campaign_ids.map(String).map(named(names.campaigns)).join(', ')}`,
      ),
      edit.form,
    ),
    actionButton(
      'Delete',
      async () => {
        await api.admin.deleteDeal.mutate({ id: deal.id });
        notify(`Deal ${deal.id} deleted`);
        await after();
      },
      { class: 'danger', 'aria-label': `Delete deal ${deal.id}` },
    ),
  ];
}

/** Private-marketplace deals: which partners offer a deal id, which campaigns bid on it, at what floor. */
export async function dealsPage(ctx: PageContext): Promise<void> {
  const [{ deals }, { partners }, { campaigns }] = await Promise.all([
    api.admin.listDeals.query(),
    api.admin.listPartners.query(),
    api.admin.listCampaigns.query(),
  ]);
  const names: Names = {
    partners: new Map(partners.map((p) => [String(p.id), `${p.name} (#${p.id})`])),
    campaigns: new Map(
      campaigns
        .filter((c) => c.status !== 'archived')
        .map((c) => [String(c.id), `${c.name} (#${c.id}, advertiser ${c.advertiser_id})`]),
    ),
  };
  const again = () => dealsPage(ctx);
  const { form } = buildForm({
    label: 'Add deal',
    submit: 'Add deal',
    fields: [
      { name: 'id', label: 'Deal id (as partners send it)', required: true },
      { name: 'floor_usd', label: 'Floor (CPM, USD)', type: 'number', step: '0.00001', value: '0' },
      ...pickers(names),
    ],
    async onSubmit(d) {
      await api.admin.createDeal.mutate({
        id: text(d, 'id'),
        floor_usd: num(d, 'floor_usd'),
        partner_ids: ids(d, 'partner_ids'),
        campaign_ids: ids(d, 'campaign_ids'),
      });
      notify('Deal added');
      await again();
    },
  });
  ctx.main.replaceChildren(
    h('h1', {}, 'Deals'),
    h(
      'p',
      {},
      'A partner offering one of these deal ids in a bid request lets the listed campaigns bid on it, at or above its floor.',
    ),
    table(
      ['Deal id', 'Floor', 'Partners and campaigns', ''],
      deals.map((d) => dealRow(d, names, again)),
      'Private-marketplace deals',
    ),
    h('h2', {}, 'Add a deal'),
    form,
  );
}
