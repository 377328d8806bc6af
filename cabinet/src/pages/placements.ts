// A campaign's placements: the zones it ran on in the last seven days, named by site domain and zone name, each with
// its figures, its place in the source list (a button) and its bid multiplier (a number field). The controls write
// the API's `sources` and `bid_adjustments` fields; nothing here is typed as text.
import { api, problem } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, h, notify, table } from '../dom.ts';
import { count, percent, ctrOf, spend } from '../format.ts';
import { multiplierField } from '../multiplier-field.ts';
import { listAction, placementName, sourcesAfter, withZoneMultiplier, zoneMultiplier } from '../placement-controls.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type StatsRow = Outputs['adv']['stats']['get']['rows'][number];
type Zone = Outputs['adv']['campaigns']['sources']['zones']['zones'][number];

/** The multiplier field of one placement, saving on its own button and showing the API's 400 beside it. */
function multiplierControl(c: Campaign, zone: Zone, label: string, after: () => Promise<void>): HTMLElement {
  const { id, input, error } = multiplierField(zoneMultiplier(c.bid_adjustments, zone.subid), 'mult');
  const save = actionButton(
    'Set',
    async () => {
      error.textContent = '';
      input.removeAttribute('aria-invalid');
      try {
        const r = await api.adv.campaigns.update.mutate({
          id: c.id,
          bid_adjustments: withZoneMultiplier(c.bid_adjustments, zone.subid, Number(input.value)),
        });
        notify(`Bid multiplier for ${label} set to ×${zoneMultiplier(r.bid_adjustments, zone.subid)}`);
        await after();
      } catch (err) {
        const p = problem(err);
        // The API names the list entry (`bid_adjustments.2.multiplier`); beside this field it is this entry.
        const mine = Object.entries(p.fields).find(([k]) => k.startsWith('bid_adjustments'));
        error.textContent = mine ? mine[1] : p.message;
        input.setAttribute('aria-invalid', 'true');
      }
    },
    { 'aria-label': `Set bid multiplier for ${label}` },
  );
  return h(
    'span',
    { class: 'multiplier' },
    h('label', { for: id, class: 'offscreen' }, `Bid multiplier for ${label}`),
    '×',
    input,
    save,
    error,
  );
}

export async function placementsSection(
  c: Campaign,
  rows: readonly StatsRow[],
  after: () => Promise<void>,
): Promise<HTMLElement> {
  const ids = [...new Set(rows.map((r) => Number(r.zone_id)).filter((id) => id > 0))].slice(0, 1000);
  const { zones } = ids.length
    ? await api.adv.campaigns.sources.zones.query({ ids: ids.join(',') })
    : { zones: [] as Zone[] };
  const byId = new Map(zones.map((z) => [z.id, z]));
  const ours = rows
    .filter((r) => byId.has(Number(r.zone_id)))
    .sort((a, b) => b.impressions - a.impressions || Number(a.zone_id) - Number(b.zone_id));
  const elsewhere = rows.filter((r) => !byId.has(Number(r.zone_id))).reduce((a, r) => a + r.impressions, 0);
  const body = ours.map((r) => {
    const zone = byId.get(Number(r.zone_id)) as Zone;
    const label = placementName(zone);
    const action = listAction(c.sources, zone.subid);
    return [
      h('span', { 'data-zone': zone.subid }, label),
      count(r.impressions),
      count(r.clicks),
      percent(ctrOf(r.clicks, r.impressions)),
      spend(r.spent_nano),
      h(
        'span',
        { class: 'row-actions' },
        action.listed ? h('span', { class: 'badge' }, c.sources.mode === 'include' ? 'included' : 'excluded') : '',
        actionButton(
          action.label,
          async () => {
            await api.adv.campaigns.update.mutate({ id: c.id, sources: sourcesAfter(c.sources, zone.subid) });
            notify(`${action.label}: ${label}`);
            await after();
          },
          { 'aria-label': `${action.label} ${label}`, class: action.op === 'add' ? 'danger' : '' },
        ),
      ),
      multiplierControl(c, zone, label, after),
    ];
  });
  return h(
    'section',
    { id: 'placements', 'aria-labelledby': 'placements-h' },
    h('h2', { id: 'placements-h' }, 'Placements, last 7 days'),
    table(['Placement', 'Impressions', 'Clicks', 'CTR', 'Spend', 'List', 'Bid'], body, 'Placements by impressions'),
    elsewhere > 0
      ? h('p', { class: 'hint' }, `${count(elsewhere)} impressions on partners' traffic (no zone of ours).`)
      : '',
  );
}
