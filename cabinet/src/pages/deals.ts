import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, h, notify, table } from '../dom.ts';
import { buildForm, list, num, text } from '../form.ts';
import type { PageContext } from '../router.ts';

type Deal = Outputs['admin']['listDeals']['deals'][number];

// Ids typed as a comma- or space-separated list; a word that is not a number reaches the API as NaN, which
// answers with the field's message beside it.
const ids = (d: FormData, name: string): number[] => list(d, name).map(Number);

function dealRow(deal: Deal, after: () => Promise<void>) {
  const edit = buildForm({
    label: `Edit deal ${deal.id}`,
    submit: 'Save',
    fields: [
      { name: 'floor_usd', label: 'Floor (CPM, USD)', type: 'number', step: '0.00001', value: String(deal.floor_usd) },
      { name: 'partner_ids', label: 'Partner ids', value: deal.partner_ids.join(', ') },
      { name: 'campaign_ids', label: 'Campaign ids', value: deal.campaign_ids.join(', ') },
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
    `$${deal.floor_usd} CPM`,
    h('details', {}, h('summary', {}, `partners ${deal.partner_ids.join(', ')} · campaigns ${deal.campaign_ids.join(', ')}`), edit.form),
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
  const { deals } = await api.admin.listDeals.query();
  const again = () => dealsPage(ctx);
  const { form } = buildForm({
    label: 'Add deal',
    submit: 'Add deal',
    fields: [
      { name: 'id', label: 'Deal id (as partners send it)', required: true },
      { name: 'floor_usd', label: 'Floor (CPM, USD)', type: 'number', step: '0.00001', value: '0' },
      { name: 'partner_ids', label: 'Partner ids (comma-separated)', required: true },
      { name: 'campaign_ids', label: 'Campaign ids (comma-separated)', required: true },
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
    h('p', {}, 'A partner offering one of these deal ids in a bid request lets the listed campaigns bid on it, at or above its floor.'),
    table(
      ['Deal id', 'Floor', 'Partners and campaigns', ''],
      deals.map((d) => dealRow(d, again)),
      'Private-marketplace deals',
    ),
    h('h2', {}, 'Add a deal'),
    form,
  );
}
