import { DEMAND_DISCARDS, DEMAND_OPENRTB_VERSIONS } from '@adnet/schemas/demand';
import type { DemandOpenRtbVersion } from '@adnet/schemas/demand';
import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { badge, enableToggle, h, notify, table } from '../dom.ts';
import { count, moneyNano } from '../format.ts';
import { countriesField } from '../countries.ts';
import { buildForm, checked, num, text } from '../form.ts';
import type { PageContext } from '../router.ts';

type DemandPartner = Outputs['admin']['listDemandPartners']['demand_partners'][number];
type Format = DemandPartner['formats'][number];

/** Zone formats a partner can be offered (docs/demand.md). */
const FORMATS = ['banner', 'native', 'in_page_push', 'video', 'floating_video', 'push'] as const;

/** The version the partner speaks: where its requests carry the supply chain (docs/demand.md, supply chain). */
const versionField = (value: string) => ({
  name: 'openrtb_version',
  label: 'OpenRTB version',
  type: 'select' as const,
  options: DEMAND_OPENRTB_VERSIONS,
  value,
});

function health(p: DemandPartner): HTMLElement {
  const c = p.health.counters;
  const n = (k: string) => c[k] ?? 0;
  // Counters run into the millions: separated like every other figure in the cabinet.
  const f = (k: string) => count(n(k));
  const discarded = DEMAND_DISCARDS.filter((k) => n(k) > 0).map((k) => `${k.replace(/_/g, ' ')} ${f(k)}`);
  return h(
    'div',
    {},
    badge(p.health.circuit === 'closed' ? 'healthy' : `circuit ${p.health.circuit}`),
    h(
      'p',
      {},
      `${f('requests')} requests · ${f('bids')} bids · ${f('wins')} wins · ${f('impressions')} impressions · ${moneyNano(n('revenue_nano'))}`,
    ),
    h('p', {}, `${f('timeouts')} timeouts · ${f('late')} late · ${f('errors')} errors · ${f('nobids')} passes`),
    // Clicks exist only on partners' ads we render (native cards, push notifications): shown once there are some.
    n('clicks') + n('invalid_clicks') > 0
      ? h('p', {}, `${f('clicks')} clicks · ${f('invalid_clicks')} invalid clicks`)
      : '',
    discarded.length ? h('p', {}, `Discarded: ${discarded.join(', ')}`) : '',
  );
}

function partnerRow(p: DemandPartner, after: () => Promise<void>) {
  const edit = buildForm({
    label: `Edit demand partner ${p.name}`,
    submit: 'Save',
    fields: [
      { name: 'endpoint', label: 'Endpoint', type: 'url', value: p.endpoint },
      { name: 'qps_limit', label: 'QPS limit', type: 'number', value: String(p.qps_limit) },
      { name: 'timeout_ms', label: 'Timeout (ms, at most 200)', type: 'number', value: String(p.timeout_ms) },
      { name: 'formats', label: 'Formats', type: 'checkboxes', options: FORMATS, value: p.formats },
      countriesField('countries', 'Countries (none chosen: all)', p.countries),
      versionField(p.openrtb_version),
    ],
    async onSubmit(d) {
      await api.admin.updateDemandPartner.mutate({
        id: p.id,
        endpoint: text(d, 'endpoint'),
        qps_limit: num(d, 'qps_limit'),
        timeout_ms: num(d, 'timeout_ms'),
        formats: checked(d, 'formats') as Format[],
        countries: checked(d, 'countries'),
        openrtb_version: text(d, 'openrtb_version') as DemandOpenRtbVersion,
      });
      notify(`Demand partner ${p.name} saved`);
      await after();
    },
  });
  return [
    p.name,
    badge(p.status),
    h(
      'details',
      {},
      h(
        'summary',
        {},
        `${p.formats.join(', ')} · ${count(p.qps_limit)} QPS · ${p.timeout_ms} ms · OpenRTB ${p.openrtb_version}`,
      ),
      edit.form,
    ),
    health(p),
    enableToggle(
      p,
      (enable) => (enable ? api.admin.enableDemandPartner : api.admin.disableDemandPartner).mutate({ id: p.id }),
      after,
    ),
  ];
}

/** Admins: the DSPs our zones' impressions are auctioned to, and how each is doing. */
export async function demandPartnersPage(ctx: PageContext): Promise<void> {
  const { demand_partners } = await api.admin.listDemandPartners.query();
  const again = () => demandPartnersPage(ctx);
  const { form } = buildForm({
    label: 'Add demand partner',
    submit: 'Add demand partner',
    fields: [
      { name: 'name', label: 'Name', required: true },
      { name: 'endpoint', label: 'Endpoint (https)', type: 'url', required: true },
      { name: 'qps_limit', label: 'QPS limit', type: 'number', value: '100' },
      { name: 'timeout_ms', label: 'Timeout (ms, at most 200)', type: 'number', value: '150' },
      { name: 'formats', label: 'Formats', type: 'checkboxes', options: FORMATS, value: ['banner'] },
      countriesField('countries', 'Countries (none chosen: all)'),
      versionField('2.5'),
    ],
    async onSubmit(d) {
      const countries = checked(d, 'countries');
      await api.admin.createDemandPartner.mutate({
        name: text(d, 'name'),
        endpoint: text(d, 'endpoint'),
        qps_limit: num(d, 'qps_limit'),
        timeout_ms: num(d, 'timeout_ms'),
        formats: checked(d, 'formats') as Format[],
        ...(countries.length ? { countries } : {}),
        openrtb_version: text(d, 'openrtb_version') as DemandOpenRtbVersion,
      });
      notify('Demand partner added');
      await again();
    },
  });
  ctx.main.replaceChildren(
    h('h1', {}, 'Demand partners'),
    table(
      ['Name', 'Status', 'Formats and limits', 'Health', ''],
      demand_partners.map((p) => partnerRow(p, again)),
      'DSPs bidding on our zones',
    ),
    h('h2', {}, 'Add a demand partner'),
    form,
  );
}
