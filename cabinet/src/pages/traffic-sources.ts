// A campaign's traffic sources (include or exclude list of zones and sites) and its bid adjustments
// (admin/docs/api.md, "Traffic sources and bid adjustments"); and the one-click buttons of the
// statistics breakdown that add a zone or site to a campaign's list.
import { api, problem } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, h, notify, table } from '../dom.ts';
import { multiplierField } from '../multiplier-field.ts';
import { presetRange } from '../date-range.ts';
import { buildForm, checked, text } from '../form.ts';
import type { FormHandle } from '../form.ts';
import { countryLabel } from '../countries.ts';
import { adjustmentField, withAdjustmentAt } from '../placement-controls.ts';
import { pastedSites, pastedZones } from '../source-paste.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type Warning = Outputs['adv']['campaigns']['update']['warnings'][number];
type Mode = Campaign['sources']['mode'];
/** Entries shown in the table; a longer list is edited by pasting. */
const SHOWN = 200;

/** Warnings as a list that stays on the page (a notice would vanish before 10 000 ids were read). */
function warningsBox(box: HTMLElement, warnings: readonly Warning[]): void {
  box.replaceChildren(
    ...warnings.map((w) =>
      h(
        'p',
        { class: 'notice warning' },
        `${w.message}: `,
        h('code', {}, w.values.slice(0, 50).join(', ')),
        w.values.length > 50 ? ` and ${w.values.length - 50} more` : '',
      ),
    ),
  );
  box.hidden = warnings.length === 0;
}

/** API field names of a PATCH (`sources.zones.3`) as the form's (`zones`). */
const asFormFields = (fields: Record<string, string>): Record<string, string> =>
  Object.fromEntries(Object.entries(fields).map(([k, v]) => [k.replace(/^sources\./, ''), v]));

async function showingErrors(handle: FormHandle, run: () => Promise<void>): Promise<void> {
  try {
    await run();
  } catch (err) {
    const p = problem(err);
    handle.showErrors(asFormFields(p.fields), p.message);
  }
}

const describeList = (s: Campaign['sources']): string => {
  const n = s.zones.length + s.sites.length;
  if (n === 0) return 'No list: the campaign serves on every source.';
  const what = `${s.zones.length} zone(s) and ${s.sites.length} site(s)`;
  return s.mode === 'include'
    ? `Include list: serves only on ${what} (not on partners' traffic).`
    : `Exclude list: never serves on ${what}.`;
};

/** Where a zone (by subid) or a site (by id) shows ads: the domains the statistics saw. */
interface KnownSources {
  zones: Map<string, string>;
  sites: Map<number, string>;
}

/**
 * The zones and sites the advertiser's campaigns ran on in the last 30 days, with the domain each
 * served on (the statistics' source: our publisher's registrable domain), so a list is picked by
 * name rather than by subid. Exchange traffic has neither a zone nor a site and is left out.
 */
async function knownSources(): Promise<KnownSources> {
  const tz = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const { rows } = await api.adv.stats.get.query({
    ...presetRange('last_30_days', Date.now(), tz),
    tz,
    group_by: 'site,zone,source',
  });
  const known: KnownSources = { zones: new Map(), sites: new Map() };
  for (const r of rows) {
    const domain = r.source && r.source !== 'other' ? r.source : '';
    if (r.zone_subid) known.zones.set(r.zone_subid, domain || (known.zones.get(r.zone_subid) ?? ''));
    if (r.site_id) known.sites.set(r.site_id, domain || (known.sites.get(r.site_id) ?? ''));
  }
  return known;
}

/** `zone a1b2c3 on example.com`, `site 17 (example.com)`: what an entry is, with its domain when known. */
const zoneText = (known: KnownSources, subid: string): string => {
  const domain = known.zones.get(subid);
  return domain ? `zone ${subid} on ${domain}` : `zone ${subid}`;
};
const siteText = (known: KnownSources, id: number): string => {
  const domain = known.sites.get(id);
  return domain ? `${domain} (site ${id})` : `site ${id}`;
};

/** The picker's values: `zone:<subid>` and `site:<id>`. */
function picked(values: readonly string[]): { zones: string[]; sites: number[] } {
  return {
    zones: values.filter((v) => v.startsWith('zone:')).map((v) => v.slice(5)),
    sites: values.filter((v) => v.startsWith('site:')).map((v) => Number(v.slice(5))),
  };
}

export async function trafficSourcesSection(c: Campaign, after: () => Promise<void>): Promise<HTMLElement> {
  const known = await knownSources().catch((): KnownSources => ({ zones: new Map(), sites: new Map() }));
  const choices = [
    ...[...known.sites.keys()].map((id) => `site:${id}`),
    ...[...known.zones.keys()].map((z) => `zone:${z}`),
  ];
  const choiceLabel = (v: string) =>
    v.startsWith('zone:') ? zoneText(known, v.slice(5)) : siteText(known, Number(v.slice(5)));
  const warnings = h('div', { class: 'warnings', role: 'status', 'aria-live': 'polite', hidden: true });
  const current = c.sources;
  const handle = buildForm({
    label: 'Traffic sources',
    submit: 'Add to list',
    fields: [
      {
        name: 'mode',
        label: 'List mode',
        type: 'select',
        options: ['exclude', 'include'],
        value: current.mode,
        hint: 'exclude: never serve there; include: serve only there',
      },
      ...(choices.length
        ? [
            {
              name: 'pick',
              label: 'Sites and zones your campaigns ran on (last 30 days)',
              type: 'picker' as const,
              options: choices,
              optionLabel: choiceLabel,
              hint: 'Type part of a domain or a subid to find it',
            },
          ]
        : []),
      { name: 'zones', label: 'Zones (subids), one per line or comma-separated', type: 'textarea' },
      { name: 'sites', label: 'Sites (ids), one per line or comma-separated', type: 'textarea' },
    ],
    async onSubmit(d, form) {
      const mode = text(d, 'mode') as Mode;
      const chosen = picked(checked(d, 'pick'));
      const zones = [...chosen.zones, ...pastedZones(text(d, 'zones'))];
      const sites = [...chosen.sites, ...pastedSites(text(d, 'sites'))];
      await showingErrors(form, async () => {
        // A new mode replaces the whole list (its entries kept); otherwise the pasted entries are added.
        const r =
          mode !== current.mode
            ? await api.adv.campaigns.update.mutate({
                id: c.id,
                sources: { mode, zones: [...current.zones, ...zones], sites: [...current.sites, ...sites] },
              })
            : await api.adv.campaigns.sources.add.mutate({ id: c.id, zones, sites });
        notify(`Traffic sources saved: ${r.sources.zones.length + r.sources.sites.length} entries`);
        await after();
        // After the re-render, on the new section.
        const box = document.querySelector<HTMLElement>('#traffic-sources > .warnings');
        if (box) warningsBox(box, r.warnings);
      });
    },
  });
  const removePasted = actionButton('Remove chosen and pasted', async () => {
    const d = new FormData(handle.form);
    const chosen = picked(checked(d, 'pick'));
    await showingErrors(handle, async () => {
      await api.adv.campaigns.sources.remove.mutate({
        id: c.id,
        zones: [...chosen.zones, ...pastedZones(text(d, 'zones'))],
        sites: [...chosen.sites, ...pastedSites(text(d, 'sites'))],
      });
      notify('Removed from the list');
      await after();
    });
  });
  handle.form.querySelector('.actions')?.append(removePasted);
  const entries = [
    ...current.zones.map((z) => ['zone', z] as const),
    ...current.sites.map((s) => ['site', s] as const),
  ];
  const rows = entries.slice(0, SHOWN).map(([kind, value]) => {
    const what = kind === 'zone' ? zoneText(known, String(value)) : siteText(known, Number(value));
    return [
      kind,
      what,
      actionButton(
        'Remove',
        async () => {
          await api.adv.campaigns.sources.remove.mutate(
            kind === 'zone' ? { id: c.id, zones: [String(value)] } : { id: c.id, sites: [Number(value)] },
          );
          notify(`Removed ${what}`);
          await after();
        },
        { 'aria-label': `Remove ${what}`, class: 'danger' },
      ),
    ];
  });
  return h(
    'section',
    { id: 'traffic-sources', 'aria-labelledby': 'traffic-sources-title' },
    h('h2', { id: 'traffic-sources-title' }, 'Traffic sources'),
    h('p', { class: 'sources-summary' }, describeList(current)),
    warnings,
    handle.form,
    table(
      ['Kind', 'Entry', ''],
      rows,
      entries.length > SHOWN ? `First ${SHOWN} of ${entries.length} entries` : 'Entries',
    ),
    bidAdjustmentsControls(c, known, after),
  );
}

/** Plain words for what an adjustment applies to: the zone or site by domain where known, a country by name. */
const adjustmentTarget = (known: KnownSources, a: Campaign['bid_adjustments'][number]): string =>
  a.zone !== undefined
    ? zoneText(known, a.zone)
    : a.site !== undefined
      ? siteText(known, a.site)
      : countryLabel(a.country ?? '');

/**
 * The bid adjustments as controls: each with its multiplier field, Set and Remove, and a form of separate fields to
 * add one; they write the campaign's `bid_adjustments` (a placement's own multiplier is also set in Placements).
 */
function bidAdjustmentsControls(c: Campaign, known: KnownSources, after: () => Promise<void>): HTMLElement {
  const warnings = h('div', { class: 'warnings', role: 'status', hidden: true });
  const saved = async (list: Campaign['bid_adjustments'], what: string) => {
    const r = await api.adv.campaigns.update.mutate({ id: c.id, bid_adjustments: list });
    notify(`${what}: ${r.bid_adjustments.length} bid adjustment(s)`);
    await after();
    const box = document.querySelector<HTMLElement>('#bid-adjustments .warnings');
    if (box) warningsBox(box, r.warnings);
  };
  const rows = c.bid_adjustments.map((a, i) => {
    const what = adjustmentTarget(known, a);
    const { id, input, error } = multiplierField(a.multiplier, 'adj');
    const apply = async (multiplier: number | null) => {
      error.textContent = '';
      input.removeAttribute('aria-invalid');
      try {
        await saved(withAdjustmentAt(c.bid_adjustments, i, multiplier), multiplier === null ? 'Removed' : 'Saved');
      } catch (err) {
        const p = problem(err);
        error.textContent = Object.entries(p.fields).find(([k]) => adjustmentField(k, i))?.[1] ?? p.message;
        input.setAttribute('aria-invalid', 'true');
      }
    };
    return [
      what,
      h(
        'span',
        { class: 'multiplier' },
        h('label', { for: id, class: 'offscreen' }, `Multiplier for ${what}`),
        '×',
        input,
        actionButton('Set', () => apply(Number(input.value)), { 'aria-label': `Set multiplier for ${what}` }),
        error,
      ),
      actionButton('Remove', () => apply(null), { 'aria-label': `Remove the adjustment for ${what}`, class: 'danger' }),
    ];
  });
  const add = buildForm({
    label: 'Add a bid adjustment',
    submit: 'Add adjustment',
    fields: [
      {
        name: 'kind',
        label: 'Applies to',
        type: 'select',
        options: ['country', 'site', 'zone'],
        hint: 'The most specific applies: zone, then site, then country.',
      },
      {
        name: 'target',
        label: 'Country code, site id or zone subid',
        hint: 'e.g. de, 17 or a1b2c3d4e5f6. A placement of the last 7 days has its own multiplier in Placements.',
      },
      { name: 'multiplier', label: 'Multiplier (0.1-10)', type: 'number', step: '0.05', value: '1' },
    ],
    async onSubmit(d, form) {
      const [kind, target, multiplier] = [text(d, 'kind'), text(d, 'target'), Number(text(d, 'multiplier'))];
      const entry =
        kind === 'site'
          ? { site: Number(target), multiplier }
          : kind === 'zone'
            ? { zone: target, multiplier }
            : { country: target.toLowerCase(), multiplier };
      const index = c.bid_adjustments.length;
      try {
        await saved([...c.bid_adjustments, entry], 'Added');
      } catch (err) {
        // The API names the new entry by its place in the list; beside this form's fields it is theirs.
        const p = problem(err);
        const fields: Record<string, string> = {};
        for (const [k, v] of Object.entries(p.fields)) {
          const f = adjustmentField(k, index);
          if (f) fields[f] = v;
        }
        form.showErrors(fields, p.message);
      }
    },
  });
  return h(
    'div',
    { id: 'bid-adjustments' },
    h('h3', {}, 'Bid adjustments'),
    warnings,
    table(['Applies to', 'Multiplier', ''], rows, 'Bid adjustments'),
    add.form,
  );
}

// ---- one click from the statistics breakdown

type Row = Record<string, string | number | null | undefined>;
type Campaigns = Outputs['adv']['campaigns']['list']['campaigns'];

/** Adds one zone or site to a campaign's list in `mode`; an empty list takes the mode, a list in the other mode is left alone. */
async function applySource(
  campaign: Campaigns[number],
  mode: Mode,
  entry: { zones?: string[]; sites?: number[] },
): Promise<boolean> {
  const s = campaign.sources;
  const empty = s.zones.length + s.sites.length === 0;
  if (s.mode !== mode && !empty) {
    notify(`${campaign.name} has an ${s.mode} list: change its mode on the campaign page first`, 'error');
    return false;
  }
  const r =
    s.mode === mode
      ? await api.adv.campaigns.sources.add.mutate({ id: campaign.id, ...entry })
      : await api.adv.campaigns.update.mutate({
          id: campaign.id,
          sources: { mode, zones: entry.zones ?? [], sites: entry.sites ?? [] },
        });
  campaign.sources = r.sources;
  for (const w of r.warnings) notify(`${w.message}: ${w.values.join(', ')}`);
  return true;
}

/**
 * For a breakdown grouped by zone or site: the column of Exclude / Include buttons, and (unless the rows
 * name their campaign) the campaign they apply to; the domains of the sites the advertiser ran on, by site id.
 * Null when the breakdown names neither zones nor sites.
 */
export async function sourceActions(
  rows: readonly Row[],
  groups: readonly string[],
): Promise<{ picker: HTMLElement | null; cell(r: Row): HTMLElement; siteNames: Map<string, string> } | null> {
  const by = groups.includes('zone') ? 'zone' : groups.includes('site') ? 'site' : null;
  if (!by) return null;
  const [{ campaigns }, lookup, known] = await Promise.all([
    api.adv.campaigns.list.query(),
    by === 'zone' && rows.length
      ? api.adv.campaigns.sources.zones.query({
          ids: [...new Set(rows.map((r) => Number(r.zone_id)).filter((id) => id > 0))].slice(0, 1000).join(','),
        })
      : Promise.resolve({ zones: [] }),
    // The buttons name a source by its domain, as the traffic-sources picker does; without it, by id.
    knownSources().catch((): KnownSources => ({ zones: new Map(), sites: new Map() })),
  ]);
  const subids = new Map(lookup.zones.map((z) => [z.id, z.subid]));
  const open = campaigns.filter((c) => c.status !== 'archived');
  const perRow = groups.includes('campaign');
  const select = h(
    'select',
    { id: 'source-campaign', name: 'source-campaign' },
    open.map((c) => h('option', { value: c.id }, c.name)),
  );
  const picker = perRow
    ? null
    : h(
        'div',
        { class: 'field' },
        h('label', { for: 'source-campaign' }, 'Exclude / Include applies to campaign'),
        select,
      );
  const campaignOf = (r: Row) => open.find((c) => c.id === (perRow ? Number(r.campaign_id) : Number(select.value)));
  return {
    picker,
    siteNames: new Map([...known.sites].filter(([, domain]) => domain).map(([id, domain]) => [String(id), domain])),
    cell(r: Row) {
      const id = Number(by === 'zone' ? r.zone_id : r.site_id);
      const subid = by === 'zone' ? subids.get(id) : undefined;
      // Our own zones and sites only: exchange traffic (id 0) has no source to list.
      if (!id || (by === 'zone' && !subid)) return h('span', {}, '');
      const entry = by === 'zone' ? { zones: [subid as string] } : { sites: [id] };
      const label = by === 'zone' ? zoneText(known, subid as string) : siteText(known, id);
      const button = (mode: Mode, word: string) =>
        actionButton(
          word,
          async () => {
            const c = campaignOf(r);
            if (!c) return;
            if (await applySource(c, mode, entry)) notify(`${word}d ${label} for ${c.name}`);
          },
          { 'aria-label': `${word} ${label}` },
        );
      return h('span', { class: 'row-actions' }, button('exclude', 'Exclude'), button('include', 'Include'));
    },
  };
}
