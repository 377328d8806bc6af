// The campaign builder's state as plain data: the values its steps hold (as the form holds them: text, and
// lists for the checkbox pickers), the draft kept in localStorage, and the API's inputs made from them.
// Nothing is checked here: the API validates and names the fields (the builder shows its words).
import { POP_FORMATS } from '@adnet/schemas/formats';
import type { Inputs, Outputs } from './api.ts';
import { cellsFromDayparting, cellsFromText, cellsToText, daypartingFromCells } from './dayparting-grid.ts';
import { pastedSites, pastedZones } from './source-paste.ts';
import { isoToLocal, localToIso } from './zoned-time.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type CampaignIn = Inputs['adv']['campaigns']['create'];
type CampaignUpdate = Inputs['adv']['campaigns']['update'];
type EstimateIn = Inputs['adv']['estimate']['get'];

export type Values = Record<string, string | string[]>;

export const STEPS = [
  { id: 'basics', title: 'Basics' },
  { id: 'audience', title: 'Audience and targeting' },
  { id: 'bid', title: 'Bid, budget and goal' },
  { id: 'schedule', title: 'Schedule' },
  { id: 'creatives', title: 'Creatives' },
  { id: 'summary', title: 'Summary' },
] as const;
export type StepId = (typeof STEPS)[number]['id'];

/** Which step holds each field the API may name (its first segment: `frequency_cap.impressions`, `dayparting.mon.3`). */
const FIELD_STEP: Record<string, StepId> = {
  name: 'basics',
  format: 'basics',
  vertical: 'basics',
  landing_url: 'basics',
  interstitial: 'basics',
  geo_include: 'audience',
  languages: 'audience',
  device_types: 'audience',
  os_include: 'audience',
  browser_include: 'audience',
  connection_types: 'audience',
  audiences_include: 'audience',
  audiences_exclude: 'audience',
  sources: 'audience',
  bid_type: 'bid',
  bid_usd: 'bid',
  daily_budget_usd: 'bid',
  total_budget_usd: 'bid',
  pacing: 'bid',
  rotation: 'bid',
  target_cpa_usd: 'bid',
  cpa_test_budget_usd: 'bid',
  frequency_cap: 'bid',
  start_at: 'schedule',
  end_at: 'schedule',
  timezone: 'schedule',
  dayparting: 'schedule',
};

/** The step an API error key belongs on; a key no step holds goes on the summary, where the launch is. */
export const stepOf = (key: string): StepId => FIELD_STEP[key.split('.')[0] ?? ''] ?? 'summary';

/** Banner and native campaigns may also fill interstitial zones (`interstitial: true`): one checkbox, this one. */
export const INTERSTITIAL_OPT_IN = 'Also show my ads full-page in interstitial zones';
export const optsInToInterstitials = (format: string): boolean => format === 'banner' || format === 'native';

/** A pop's ad is its landing page alone: no creatives step, the URL asked with the basics. */
export const isPop = (format: string): boolean => (POP_FORMATS as readonly string[]).includes(format);

/** The steps of a campaign of `format`, in order. */
export const stepsFor = (format: string): StepId[] =>
  STEPS.map((s) => s.id).filter((id) => id !== 'creatives' || !isPop(format));

/** The checkbox lists; every other value is one string. */
export const LIST_FIELDS = [
  'geo_include',
  'languages',
  'device_types',
  'os_include',
  'browser_include',
  'connection_types',
  'audiences_include',
  'audiences_exclude',
  'interstitial',
] as const;

/** A new campaign's values before anything is chosen. */
export const NEW_CAMPAIGN: Values = {
  name: '',
  format: 'native',
  vertical: '',
  landing_url: '',
  bid_type: 'cpm',
  bid_usd: '',
  daily_budget_usd: '',
  total_budget_usd: '',
  pacing: 'even',
  rotation: 'optimize',
  target_cpa_usd: '',
  cpa_test_budget_usd: '',
  'frequency_cap.impressions': '',
  'frequency_cap.period_hours': '',
  start_at: '',
  end_at: '',
  timezone: 'UTC',
  hours: cellsToText(cellsFromDayparting(null)),
  // A new campaign's traffic source list, pasted; an existing one's is edited on its page.
  'sources.mode': 'exclude',
  'sources.zones': '',
  'sources.sites': '',
  ...Object.fromEntries(LIST_FIELDS.map((f) => [f, []])),
};

const usd = (cents: number | null | undefined) => (cents == null ? '' : String(cents / 100));

/** An existing campaign's values, for editing it with the same steps. */
export function valuesFromCampaign(c: Campaign): Values {
  return {
    ...NEW_CAMPAIGN,
    name: c.name,
    format: c.format,
    vertical: c.vertical,
    bid_type: c.bid_type,
    bid_usd: String(c.bid_micro_cents / 100_000),
    daily_budget_usd: usd(c.daily_budget_cents),
    total_budget_usd: usd(c.total_budget_cents),
    pacing: c.pacing,
    rotation: c.rotation,
    target_cpa_usd: usd(c.target_cpa_cents),
    // Twice the target is the API's default: left empty, it follows a changed target as the API does.
    cpa_test_budget_usd:
      c.target_cpa_cents !== null && c.cpa_test_budget_cents === 2 * c.target_cpa_cents
        ? ''
        : usd(c.cpa_test_budget_cents),
    'frequency_cap.impressions': c.frequency_cap ? String(c.frequency_cap.impressions) : '',
    'frequency_cap.period_hours': c.frequency_cap ? String(c.frequency_cap.period_hours) : '',
    start_at: isoToLocal(c.start_at, c.timezone),
    end_at: isoToLocal(c.end_at, c.timezone),
    timezone: c.timezone,
    hours: cellsToText(cellsFromDayparting(c.dayparting)),
    geo_include: [...c.geo_include],
    languages: [...c.languages],
    device_types: [...c.device_types],
    os_include: [...c.os_include],
    browser_include: [...c.browser_include],
    connection_types: [...c.connection_types],
    audiences_include: c.audiences_include.map(String),
    audiences_exclude: c.audiences_exclude.map(String),
    interstitial: c.interstitial ? [INTERSTITIAL_OPT_IN] : [],
  };
}

export const one = (v: Values, name: string): string => {
  const x = v[name];
  return typeof x === 'string' ? x.trim() : '';
};
export const many = (v: Values, name: string): string[] => {
  const x = v[name];
  return Array.isArray(x) ? x : [];
};
/** Empty is left out, so the API says "is required" in its words; anything else goes as typed (NaN is sent as null). */
const num = (v: Values, name: string): number => (one(v, name) === '' ? undefined : Number(one(v, name))) as number;
const optNum = (v: Values, name: string): number | undefined =>
  one(v, name) === '' ? undefined : Number(one(v, name));
const ids = (v: Values, name: string): number[] => many(v, name).map(Number);

/** What the create and the update share. */
function common(v: Values) {
  const timezone = one(v, 'timezone') || 'UTC';
  const capped = one(v, 'frequency_cap.impressions') !== '' || one(v, 'frequency_cap.period_hours') !== '';
  return {
    name: one(v, 'name'),
    vertical: one(v, 'vertical') as CampaignIn['vertical'],
    bid_type: one(v, 'bid_type') as CampaignIn['bid_type'],
    bid_usd: num(v, 'bid_usd'),
    daily_budget_usd: num(v, 'daily_budget_usd'),
    pacing: one(v, 'pacing') as CampaignIn['pacing'],
    rotation: one(v, 'rotation') as CampaignIn['rotation'],
    geo_include: many(v, 'geo_include'),
    languages: many(v, 'languages'),
    device_types: many(v, 'device_types') as CampaignIn['device_types'],
    os_include: many(v, 'os_include') as CampaignIn['os_include'],
    browser_include: many(v, 'browser_include') as CampaignIn['browser_include'],
    connection_types: many(v, 'connection_types') as CampaignIn['connection_types'],
    audiences_include: ids(v, 'audiences_include'),
    audiences_exclude: ids(v, 'audiences_exclude'),
    frequency_cap: capped
      ? { impressions: num(v, 'frequency_cap.impressions'), period_hours: num(v, 'frequency_cap.period_hours') }
      : null,
    start_at: localToIso(one(v, 'start_at'), timezone),
    end_at: localToIso(one(v, 'end_at'), timezone),
    timezone,
    dayparting: daypartingFromCells(cellsFromText(one(v, 'hours'))),
    cpa_test_budget_usd: optNum(v, 'cpa_test_budget_usd'),
    // Sent only for the formats that take it: the API refuses it on any other.
    ...(optsInToInterstitials(one(v, 'format')) ? { interstitial: many(v, 'interstitial').length > 0 } : {}),
  };
}

/** The pasted source list, or none when nothing is pasted. */
function sources(v: Values): CampaignIn['sources'] {
  const zones = pastedZones(one(v, 'sources.zones'));
  const sites = pastedSites(one(v, 'sources.sites'));
  if (zones.length === 0 && sites.length === 0) return undefined;
  return { mode: one(v, 'sources.mode') as NonNullable<CampaignIn['sources']>['mode'], zones, sites };
}

/** `POST /api/adv/campaigns` of the builder's values. */
export function createInput(v: Values): CampaignIn {
  return {
    ...common(v),
    sources: sources(v),
    format: one(v, 'format') as CampaignIn['format'],
    total_budget_usd: optNum(v, 'total_budget_usd'),
    target_cpa_usd: optNum(v, 'target_cpa_usd'),
  };
}

/** The update of campaign `id`: an emptied total budget or target CPA is removed (null). */
export function updateInput(id: number, v: Values): CampaignUpdate {
  return {
    id,
    ...common(v),
    total_budget_usd: optNum(v, 'total_budget_usd') ?? null,
    target_cpa_usd: optNum(v, 'target_cpa_usd') ?? null,
  };
}

/** The targeting and bid, as the traffic estimate takes them. */
export function estimateInput(v: Values): EstimateIn {
  const c = createInput(v);
  return {
    format: c.format,
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
    sources: c.sources,
  };
}

// ---- the draft kept while the page is left

export interface Draft {
  /** The step the person was on. */
  step: StepId;
  values: Values;
  /** When it was last kept (ISO 8601), said when it is restored. */
  saved_at: string;
}

const DRAFT_VERSION = 1;

/** One draft per user and campaign (`new` for the one being made), so two accounts on one browser keep theirs apart. */
export const draftKey = (email: string, campaign: number | 'new'): string =>
  `adnet.campaign-draft.v${DRAFT_VERSION}.${email.toLowerCase()}.${campaign}`;

export const serializeDraft = (d: Draft): string => JSON.stringify({ v: DRAFT_VERSION, ...d });

const isValue = (x: unknown): x is string | string[] =>
  typeof x === 'string' || (Array.isArray(x) && x.every((i) => typeof i === 'string'));

/**
 * A kept draft, or null for none, another version or anything damaged. Only the known fields are taken,
 * each only as a string or a list of strings, over a new campaign's defaults.
 */
export function parseDraft(text: string | null): Draft | null {
  if (!text) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return null;
  }
  if (typeof raw !== 'object' || raw === null) return null;
  const d = raw as Record<string, unknown>;
  if (d.v !== DRAFT_VERSION || typeof d.values !== 'object' || d.values === null) return null;
  const given = d.values as Record<string, unknown>;
  const values: Values = { ...NEW_CAMPAIGN };
  for (const [name, def] of Object.entries(NEW_CAMPAIGN)) {
    const x = given[name];
    if (isValue(x) && Array.isArray(x) === Array.isArray(def)) values[name] = x;
  }
  const step = STEPS.find((s) => s.id === d.step)?.id ?? 'basics';
  return { step, values, saved_at: typeof d.saved_at === 'string' ? d.saved_at : '' };
}
