// The campaign builder's fields, step by step (pages/campaign-builder.ts puts them on the page): each filled
// from the builder's values, named as the API names the field, so its 400s land beside them.
import { creativeFieldsSchema } from '@adnet/schemas/api';
import type { Outputs } from '../api.ts';
import { INTERSTITIAL_OPT_IN, one } from '../campaign-draft.ts';
import type { Values } from '../campaign-draft.ts';
import { BID_TYPES, BROWSERS, CONNECTIONS, DEVICES, FORMATS, OSES, PACINGS, ROTATIONS, VERTICALS } from '../choices.ts';
import { countriesField } from '../countries.ts';
import type { FieldSpec } from '../form.ts';
import { languageLabel, languagesByName } from '../languages.ts';
import { timeZones } from '../zoned-time.ts';

type Audience = Outputs['adv']['audiences']['list']['audiences'][number];

const str = (v: Values, name: string) => one(v, name) || undefined;
const arr = (v: Values, name: string) => {
  const x = v[name];
  return Array.isArray(x) ? x : [];
};

export function basicsFields(v: Values, editing: boolean): FieldSpec[] {
  return [
    { name: 'name', label: 'Name', required: true, value: str(v, 'name') },
    ...(editing
      ? []
      : [
          {
            name: 'format',
            label: 'Format',
            type: 'select' as const,
            options: FORMATS,
            value: str(v, 'format'),
            hint: 'Fixed once the campaign exists. A popunder or direct link is its landing page alone: no images.',
          },
        ]),
    { name: 'vertical', label: 'Vertical', type: 'select', options: VERTICALS, value: str(v, 'vertical') },
    {
      name: 'interstitial',
      label: 'Interstitials',
      type: 'checkboxes',
      options: [INTERSTITIAL_OPT_IN],
      value: arr(v, 'interstitial'),
      hint: 'Banner and native campaigns: the same creative, centred on a full-page overlay the visitor closes',
    },
    ...(editing
      ? []
      : [
          {
            name: 'landing_url',
            label: 'Landing URL (the page the pop opens)',
            type: 'url' as const,
            value: str(v, 'landing_url'),
          },
        ]),
  ];
}

/** A new campaign's source list, pasted as the campaign page's source form takes it; an existing one's is edited there. */
const sourceFields = (v: Values): FieldSpec[] => [
  {
    name: 'sources.mode',
    label: 'Traffic source list',
    type: 'select',
    options: ['exclude', 'include'],
    optionLabel: (m) => (m === 'include' ? 'Only on the zones and sites below' : 'Never on the zones and sites below'),
    value: str(v, 'sources.mode'),
  },
  {
    name: 'sources.zones',
    label: 'Zones (subids; one per line or comma-separated; empty = none)',
    type: 'textarea',
    value: str(v, 'sources.zones'),
  },
  {
    name: 'sources.sites',
    label: 'Sites (ids; empty = none)',
    type: 'textarea',
    value: str(v, 'sources.sites'),
    hint: 'Nothing listed: every source. Later, the campaign page picks sources by domain from its statistics.',
  },
];

export function audienceFields(v: Values, audiences: Audience[], editing: boolean): FieldSpec[] {
  const ids = audiences.map((a) => String(a.id));
  const names = new Map(audiences.map((a) => [String(a.id), a.name]));
  const audienceLabel = (id: string) => names.get(id) ?? `#${id}`;
  const noAudiences = audiences.length ? undefined : 'You have no audiences yet: make them on the Audiences page.';
  return [
    countriesField('geo_include', 'Countries (none chosen = all)', arr(v, 'geo_include')),
    {
      name: 'languages',
      label: 'Languages (none chosen = all)',
      type: 'picker',
      options: languagesByName(),
      optionLabel: languageLabel,
      value: arr(v, 'languages'),
      hint: 'Type part of a name or a code to find a language',
    },
    {
      name: 'device_types',
      label: 'Devices (none checked = all)',
      type: 'checkboxes',
      options: DEVICES,
      value: arr(v, 'device_types'),
    },
    {
      name: 'os_include',
      label: 'Operating systems (none checked = all)',
      type: 'checkboxes',
      options: OSES,
      value: arr(v, 'os_include'),
    },
    {
      name: 'browser_include',
      label: 'Browsers (none checked = all)',
      type: 'checkboxes',
      options: BROWSERS,
      value: arr(v, 'browser_include'),
    },
    {
      name: 'connection_types',
      label: 'Connection types (none checked = all; partners’ traffic only, our own zones do not know it)',
      type: 'checkboxes',
      options: CONNECTIONS,
      value: arr(v, 'connection_types'),
    },
    {
      name: 'audiences_include',
      label: 'Show only to people in these audiences (none chosen = anyone)',
      type: 'picker',
      options: ids,
      optionLabel: audienceLabel,
      value: arr(v, 'audiences_include'),
      hint: noAudiences,
    },
    {
      name: 'audiences_exclude',
      label: 'Never show to people in these audiences',
      type: 'picker',
      options: ids,
      optionLabel: audienceLabel,
      value: arr(v, 'audiences_exclude'),
    },
    ...(editing ? [] : sourceFields(v)),
  ];
}

export function bidFields(v: Values): FieldSpec[] {
  const money = (name: string, label: string, hint?: string): FieldSpec => ({
    name,
    label,
    type: 'number',
    step: 'any',
    value: str(v, name),
    hint,
  });
  return [
    { name: 'bid_type', label: 'Bid type', type: 'select', options: BID_TYPES, value: str(v, 'bid_type') },
    { ...money('bid_usd', 'Bid (USD; CPM per thousand impressions, CPC per click)'), required: true },
    { ...money('daily_budget_usd', 'Daily budget (USD)'), required: true },
    money('total_budget_usd', 'Total budget (USD, all days; empty = none)'),
    {
      name: 'pacing',
      label: 'Pacing',
      type: 'select',
      options: PACINGS,
      value: str(v, 'pacing'),
      hint: 'even: the daily budget spread over the day; asap: as fast as traffic allows',
    },
    {
      name: 'rotation',
      label: 'Creative rotation',
      type: 'select',
      options: ROTATIONS,
      value: str(v, 'rotation'),
      hint: 'optimize: more traffic to what people click; weighted: by each creative’s weight',
    },
    money(
      'target_cpa_usd',
      'Target CPA (USD per conversion; empty = none)',
      'With a target, the bid above is the most the campaign pays; each zone is tested, then re-bid or excluded by its cost per conversion.',
    ),
    money(
      'cpa_test_budget_usd',
      'Test budget per zone (USD; empty = twice the target CPA)',
      'What a zone may spend without a conversion before it is excluded.',
    ),
    {
      name: 'frequency_cap.impressions',
      label: 'Frequency cap: ads per user (empty = no cap)',
      type: 'number',
      value: str(v, 'frequency_cap.impressions'),
    },
    {
      name: 'frequency_cap.period_hours',
      label: 'Frequency cap: within hours',
      type: 'number',
      value: str(v, 'frequency_cap.period_hours'),
    },
  ];
}

export function scheduleFields(v: Values, grid: (id: string, errId: string) => HTMLElement): FieldSpec[] {
  const zones = timeZones();
  const tz = one(v, 'timezone') || 'UTC';
  return [
    {
      name: 'timezone',
      label: 'Time zone (of the dates and hours below)',
      type: 'select',
      options: zones.includes(tz) ? zones : [tz, ...zones],
      optionLabel: (z) => z.replace(/_/g, ' '),
      value: tz,
    },
    { name: 'start_at', label: 'Start (empty = at once)', type: 'datetime-local', value: str(v, 'start_at') },
    { name: 'end_at', label: 'End (empty = never)', type: 'datetime-local', value: str(v, 'end_at') },
    {
      name: 'dayparting',
      label: 'Hours',
      hint: 'Drag across the hours to paint them, or move with the arrow keys and press Space. No hour painted: around the clock.',
      render: grid,
    },
  ];
}

/** What the landing URL field says before the campaign is made: the API's own check of a creative's URL. */
export function landingProblem(url: string): string | undefined {
  if (url === '') return 'is required';
  return creativeFieldsSchema.shape.landing_url.safeParse(url).error?.issues[0]?.message;
}
