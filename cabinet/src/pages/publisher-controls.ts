// A publisher's controls over what its inventory shows: a site's are its zones' defaults, a zone's
// override them field by field (admin/docs/api.md, "Publisher controls").
import { api } from '../api.ts';
import type { Inputs, Outputs } from '../api.ts';
import { FALLBACK_TYPES, VERTICALS } from '../choices.ts';
import { h, notify } from '../dom.ts';
import { cpm } from '../format.ts';
import { buildForm, checked, text } from '../form.ts';

type Site = Outputs['pub']['sites']['get'];
type Zone = Outputs['pub']['zones']['get'];
type Controls = Pick<Site, 'floor_cpm_usd' | 'blocked_verticals' | 'blocked_advertiser_domains' | 'fallback'>;
type ControlsIn = Omit<
  Inputs['pub']['zones']['update'],
  'id' | 'name' | 'fv_corner' | 'fv_delay_sec' | 'fv_freq_cap_hours' | 'banner_width' | 'banner_height'
>;
const CONTROLS = ['floor_cpm_usd', 'blocked_verticals', 'blocked_advertiser_domains', 'fallback'] as const;

/** The API's precedence, for the summary: the zone's setting, else its site's. */
const inEffect = (zone: Controls, site: Controls | undefined): Controls => ({
  floor_cpm_usd: zone.floor_cpm_usd ?? site?.floor_cpm_usd ?? null,
  blocked_verticals: zone.blocked_verticals ?? site?.blocked_verticals ?? null,
  blocked_advertiser_domains: zone.blocked_advertiser_domains ?? site?.blocked_advertiser_domains ?? null,
  fallback: zone.fallback ?? site?.fallback ?? null,
});

function summary(c: Controls): string {
  const blocked = [...(c.blocked_verticals ?? []), ...(c.blocked_advertiser_domains ?? [])];
  return [
    c.floor_cpm_usd ? `floor ${cpm(c.floor_cpm_usd)}` : 'no floor',
    blocked.length ? `blocks ${blocked.join(', ')}` : 'nothing blocked',
    c.fallback && c.fallback.type !== 'none' ? `fallback ${c.fallback.type}` : 'no fallback',
  ].join('; ');
}

/** What the form says, as the API takes it; `inherit` names the zone's fields that follow the site. */
function controlsInput(d: FormData, inherit: ReadonlySet<string>): ControlsIn {
  const floor = text(d, 'floor_cpm_usd');
  const type = text(d, 'fallback_type') as NonNullable<Controls['fallback']>['type'];
  return {
    floor_cpm_usd: inherit.has('floor_cpm_usd') || floor === '' ? null : Number(floor),
    blocked_verticals: inherit.has('blocked_verticals')
      ? null
      : (checked(d, 'blocked_verticals') as NonNullable<ControlsIn['blocked_verticals']>),
    blocked_advertiser_domains: inherit.has('blocked_advertiser_domains')
      ? null
      : text(d, 'blocked_advertiser_domains')
          .split(/[\s,]+/)
          .filter(Boolean),
    fallback: inherit.has('fallback') ? null : { type, value: type === 'none' ? undefined : text(d, 'fallback') },
  };
}

/** The controls of a site (its zones' defaults) or of a zone (over its site's), in a collapsed section with what is in effect. */
export function controlsSection(of: { site: Site; zone?: Zone }, after: () => Promise<void>): HTMLElement {
  const { site, zone } = of;
  const own: Controls = zone ?? site;
  const name = zone ? zone.name : site.domain;
  const siteSays = (value: string) => (zone ? `Site default: ${value}` : undefined);
  const { form } = buildForm({
    label: `Controls of ${name}`,
    submit: 'Save controls',
    fields: [
      ...(zone
        ? [
            {
              name: 'inherit',
              label: "Follow the site's default for",
              type: 'checkboxes' as const,
              options: CONTROLS,
              value: CONTROLS.filter((c) => zone[c] === null),
            },
          ]
        : []),
      {
        name: 'floor_cpm_usd',
        label: 'Floor (CPM, USD)',
        type: 'number',
        step: '0.00001',
        value: own.floor_cpm_usd === null ? '' : String(own.floor_cpm_usd),
        hint:
          siteSays(site.floor_cpm_usd === null ? 'none' : cpm(site.floor_cpm_usd)) ??
          'Every bid must reach it; empty for none',
      },
      {
        name: 'blocked_verticals',
        label: 'Blocked verticals',
        type: 'checkboxes',
        options: VERTICALS,
        value: own.blocked_verticals ?? [],
        hint: siteSays((site.blocked_verticals ?? []).join(', ') || 'none'),
      },
      {
        name: 'blocked_advertiser_domains',
        label: 'Blocked advertiser domains',
        type: 'textarea',
        value: (own.blocked_advertiser_domains ?? []).join('\n'),
        hint:
          siteSays((site.blocked_advertiser_domains ?? []).join(', ') || 'none') ??
          'One per line; their subdomains are blocked too',
      },
      {
        name: 'fallback_type',
        label: 'Fallback when nothing fills',
        type: 'select',
        options: FALLBACK_TYPES,
        value: own.fallback?.type ?? 'none',
      },
      {
        name: 'fallback',
        label: 'Fallback HTML or URL',
        type: 'textarea',
        value: own.fallback?.value ?? '',
        hint: 'Shown in a sandboxed frame; HTML up to 16 KB, or an http(s) URL',
      },
    ],
    async onSubmit(d) {
      const input = controlsInput(d, new Set(zone ? checked(d, 'inherit') : []));
      if (zone) await api.pub.zones.update.mutate({ id: zone.id, ...input });
      else await api.pub.sites.update.mutate({ id: site.id, ...input });
      notify(`Controls of ${name} saved`);
      await after();
    },
  });
  // Setting a control of the zone's own stops it following the site.
  form.addEventListener('input', (ev) => {
    const field = (ev.target as HTMLElement).closest<HTMLElement>('[data-field]')?.dataset.field;
    const box = form.querySelector<HTMLInputElement>(
      `input[name="inherit"][value="${field === 'fallback_type' ? 'fallback' : field}"]`,
    );
    if (box) box.checked = false;
  });
  return h(
    'details',
    { class: 'controls' },
    h('summary', {}, 'Controls: ', h('span', { 'data-controls': name }, summary(zone ? inEffect(zone, site) : site))),
    form,
  );
}
