// The builder's summary step: everything chosen, in words, one section per step. Pure, for its test.
import { countryName } from './countries.ts';
import { isPop, many, one, optsInToInterstitials } from './campaign-draft.ts';
import type { StepId, Values } from './campaign-draft.ts';
import { cellsFromText, daypartingFromCells, describeDayparting } from './dayparting-grid.ts';
import { languageName } from './languages.ts';

export interface SummarySection {
  step: StepId;
  title: string;
  lines: string[];
}

/** Names the summary cannot know by itself: the advertiser's audiences by id. */
export interface SummaryNames {
  audiences: ReadonlyMap<string, string>;
}

const words = (s: string) => s.replace(/_/g, ' ');
/** A typed amount as dollars, or the typing itself when it is no number (the API will name it). */
const dollars = (typed: string): string => {
  const n = Number(typed);
  return typed !== '' && Number.isFinite(n) ? `$${n.toFixed(Math.max(2, (typed.split('.')[1] ?? '').length))}` : typed;
};
const listOr = (items: string[], none: string) => (items.length ? items.join(', ') : none);

const count = (typed: string) => typed.split(/[\s,;]+/).filter(Boolean).length;
function sourcesText(v: Values): string {
  const zones = count(one(v, 'sources.zones'));
  const sites = count(one(v, 'sources.sites'));
  if (zones + sites === 0) return 'all';
  const what = `${zones} zone(s) and ${sites} site(s)`;
  return one(v, 'sources.mode') === 'include' ? `only on ${what}` : `never on ${what}`;
}

export function summarize(v: Values, names: SummaryNames, opts: { editing: boolean }): SummarySection[] {
  const format = one(v, 'format');
  const pop = isPop(format);
  const basics = [
    `Name: ${one(v, 'name') || '(none yet)'}`,
    `Format: ${words(format)}`,
    `Vertical: ${words(one(v, 'vertical')) || '(none chosen)'}`,
  ];
  if (pop && !opts.editing) basics.push(`Landing URL: ${one(v, 'landing_url') || '(none yet)'}`);
  if (optsInToInterstitials(format))
    basics.push(`Interstitial zones: ${many(v, 'interstitial').length > 0 ? 'yes, full-page too' : 'no'}`);

  const audienceNames = (field: string) => many(v, field).map((id) => names.audiences.get(id) ?? `audience #${id}`);
  const include = audienceNames('audiences_include');
  const exclude = audienceNames('audiences_exclude');
  const audience = [
    `Countries: ${listOr(many(v, 'geo_include').map(countryName), 'all')}`,
    `Languages: ${listOr(many(v, 'languages').map(languageName), 'all')}`,
    `Devices: ${listOr(many(v, 'device_types'), 'all')}`,
    `Operating systems: ${listOr(many(v, 'os_include'), 'all')}`,
    `Browsers: ${listOr(many(v, 'browser_include'), 'all')}`,
    `Connection types: ${listOr(many(v, 'connection_types').map(words), 'all')}`,
    include.length ? `Only people in: ${include.join(', ')}` : 'Audiences: anyone',
  ];
  if (exclude.length) audience.push(`Never people in: ${exclude.join(', ')}`);
  if (!opts.editing) audience.push(`Traffic sources: ${sourcesText(v)}`);

  const bidType = one(v, 'bid_type');
  const cpa = one(v, 'target_cpa_usd');
  const impressions = one(v, 'frequency_cap.impressions');
  const bid = [
    `${bidType.toUpperCase()} bid: ${dollars(one(v, 'bid_usd')) || '(none yet)'} ${bidType === 'cpc' ? 'per click' : 'per thousand impressions'}`,
    `Daily budget: ${dollars(one(v, 'daily_budget_usd')) || '(none yet)'}`,
    `Total budget: ${dollars(one(v, 'total_budget_usd')) || 'none'}`,
    `Pacing: ${one(v, 'pacing')}; creative rotation: ${one(v, 'rotation')}`,
    cpa
      ? `Target CPA: ${dollars(cpa)} per conversion, the bid being the most it pays; test budget per zone ${dollars(one(v, 'cpa_test_budget_usd')) || 'twice the target'}`
      : 'Target CPA: none',
    impressions
      ? `Frequency cap: at most ${impressions} per user in ${one(v, 'frequency_cap.period_hours') || '?'} h`
      : 'Frequency cap: none',
  ];

  const tz = one(v, 'timezone') || 'UTC';
  const when = (local: string, none: string) => (local ? `${local.replace('T', ' ')} (${tz})` : none);
  const schedule = [
    `Starts: ${when(one(v, 'start_at'), 'at once')}`,
    `Ends: ${when(one(v, 'end_at'), 'never')}`,
    `Hours (${tz}): ${describeDayparting(daypartingFromCells(cellsFromText(one(v, 'hours'))))}`,
  ];

  const sections: SummarySection[] = [
    { step: 'basics', title: 'Basics', lines: basics },
    { step: 'audience', title: 'Audience and targeting', lines: audience },
    { step: 'bid', title: 'Bid, budget and goal', lines: bid },
    { step: 'schedule', title: 'Schedule', lines: schedule },
  ];
  if (!pop)
    sections.push({
      step: 'creatives',
      title: 'Creatives',
      lines: [
        opts.editing
          ? 'Creatives are kept on the campaign page.'
          : 'Next: upload the creatives on the campaign page that opens after the launch.',
      ],
    });
  return sections;
}
