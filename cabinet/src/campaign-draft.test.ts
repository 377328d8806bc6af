import { campaignCreateInputSchema, campaignSchema, campaignUpdateInputSchema } from '@adnet/schemas/api';
import { describe, expect, it } from 'vitest';
import {
  NEW_CAMPAIGN,
  createInput,
  draftKey,
  parseDraft,
  serializeDraft,
  stepOf,
  stepsFor,
  updateInput,
  valuesFromCampaign,
} from './campaign-draft.ts';
import { cellsFromDayparting, cellsToText } from './dayparting-grid.ts';

const chosen = {
  ...NEW_CAMPAIGN,
  name: 'Winter',
  vertical: 'ecommerce',
  format: 'banner',
  bid_usd: '1.5',
  daily_budget_usd: '50',
  geo_include: ['de', 'fr'],
  languages: ['de'],
  device_types: ['mobile'],
  audiences_include: ['3'],
  audiences_exclude: ['4'],
  target_cpa_usd: '12.5',
  'frequency_cap.impressions': '3',
  'frequency_cap.period_hours': '24',
  start_at: '2026-12-01T09:00',
  timezone: 'Europe/Berlin',
  hours: cellsToText(cellsFromDayparting({ mon: [9, 10], sat: [20] })),
};

describe('the builder values and the API', () => {
  it('makes the create input the API accepts, in its own shapes', () => {
    const input = createInput(chosen);
    const parsed = campaignCreateInputSchema.parse(input);
    expect(parsed).toMatchObject({
      geo_include: ['de', 'fr'],
      languages: ['de'],
      audiences_include: [3],
      audiences_exclude: [4],
      target_cpa_usd: 12.5,
      frequency_cap: { impressions: 3, period_hours: 24 },
      start_at: '2026-12-01T08:00:00.000Z',
      end_at: null,
      timezone: 'Europe/Berlin',
      dayparting: { mon: [9, 10], sat: [20] },
    });
    expect(input.total_budget_usd).toBeUndefined();
    expect(input.sources).toBeUndefined();
  });

  it('sends a pasted source list, a site id that is no number as null for the API to name', () => {
    const input = createInput({
      ...chosen,
      'sources.mode': 'include',
      'sources.zones': 'a1b2\nc3d4, a1b2',
      'sources.sites': '17 x',
    });
    expect(input.sources).toEqual({ mode: 'include', zones: ['a1b2', 'c3d4', 'a1b2'], sites: [17, NaN] });
    const refused = campaignCreateInputSchema.safeParse(JSON.parse(JSON.stringify(input)));
    expect(refused.error?.issues.map((i) => i.path.join('.'))).toEqual(['sources.sites.1']);
    expect(stepOf('sources.sites.1')).toBe('audience');
    // An existing campaign's list is edited on its page: the builder's save leaves it alone.
    expect(updateInput(7, { ...chosen, 'sources.zones': 'a1b2' })).not.toHaveProperty('sources');
  });

  it('leaves what is empty for the API to call required, and sends no schedule or cap when none is chosen', () => {
    const input = createInput(NEW_CAMPAIGN);
    expect(input.bid_usd).toBeUndefined();
    expect(input.dayparting).toBeNull();
    expect(input.frequency_cap).toBeNull();
    const fields = campaignCreateInputSchema.safeParse(input).error?.issues.map((i) => i.path.join('.'));
    expect(fields).toEqual(expect.arrayContaining(['name', 'vertical', 'bid_usd', 'daily_budget_usd']));
  });

  it('pre-fills an edit from a stored campaign and saves the same campaign back, an emptied budget removed', () => {
    const stored = campaignSchema.parse({
      id: 7,
      advertiser_id: 1,
      name: 'Winter',
      vertical: 'ecommerce',
      format: 'banner',
      bid_type: 'cpm',
      bid_micro_cents: 150_000,
      status: 'draft',
      daily_budget_cents: 5000,
      daily_spent_cents: 0,
      daily_spent_nano: 0,
      total_spent_cents: 0,
      delivery: { serving: false, reasons: ['draft'] },
      geo_include: ['de'],
      languages: ['de'],
      device_types: [],
      total_budget_cents: 10_000,
      target_cpa_cents: 1250,
      cpa_test_budget_cents: 3000,
      audiences_include: [3],
      start_at: '2026-12-01T08:00:00.000Z',
      timezone: 'Europe/Berlin',
      dayparting: { fri: [23] },
      created_at: '',
      updated_at: '',
    });
    const v = valuesFromCampaign(stored);
    expect(v).toMatchObject({
      bid_usd: '1.5',
      daily_budget_usd: '50',
      target_cpa_usd: '12.5',
      start_at: '2026-12-01T09:00',
    });
    const update = campaignUpdateInputSchema.parse(updateInput(7, v));
    expect(update).toMatchObject({
      id: 7,
      bid_usd: 1.5,
      total_budget_usd: 100,
      target_cpa_usd: 12.5,
      cpa_test_budget_usd: 30,
      audiences_include: [3],
      start_at: '2026-12-01T08:00:00.000Z',
      dayparting: { fri: [23] },
    });
    // A test budget of twice the target is the default: left empty, to follow a new target.
    expect(valuesFromCampaign({ ...stored, cpa_test_budget_cents: 2500 }).cpa_test_budget_usd).toBe('');
    expect(updateInput(7, { ...v, total_budget_usd: '', target_cpa_usd: '' })).toMatchObject({
      total_budget_usd: null,
      target_cpa_usd: null,
    });
  });

  it('puts each API error key on the step that holds its field, pops without a creatives step', () => {
    expect(stepOf('name')).toBe('basics');
    expect(stepOf('geo_include.2')).toBe('audience');
    expect(stepOf('frequency_cap.impressions')).toBe('bid');
    expect(stepOf('dayparting.mon.3')).toBe('schedule');
    expect(stepOf('something_else')).toBe('summary');
    expect(stepsFor('banner')).toContain('creatives');
    expect(stepsFor('popunder')).toEqual(['basics', 'audience', 'bid', 'schedule', 'summary']);
    expect(stepsFor('direct_link')).not.toContain('creatives');
  });
});

describe('the kept draft', () => {
  it('comes back as it was kept, per user and campaign', () => {
    const d = { step: 'schedule' as const, values: chosen, saved_at: '2026-11-29T10:00:00.000Z' };
    expect(parseDraft(serializeDraft(d))).toEqual(d);
    expect(draftKey('A@x.com', 'new')).not.toBe(draftKey('b@x.com', 'new'));
    expect(draftKey('a@x.com', 'new')).toBe(draftKey('A@X.com', 'new'));
    expect(draftKey('a@x.com', 7)).not.toBe(draftKey('a@x.com', 'new'));
  });

  it('reads nothing from a damaged or foreign draft, and only known fields of the right kind', () => {
    expect(parseDraft(null)).toBeNull();
    expect(parseDraft('{')).toBeNull();
    expect(parseDraft('[]')).toBeNull();
    expect(parseDraft(JSON.stringify({ v: 2, step: 'bid', values: {} }))).toBeNull();
    const odd = parseDraft(
      JSON.stringify({ v: 1, step: 'nowhere', values: { name: 'X', geo_include: 'de', evil: 'y', languages: [1] } }),
    );
    expect(odd?.step).toBe('basics');
    expect(odd?.values.name).toBe('X');
    expect(odd?.values.geo_include).toEqual([]);
    expect(odd?.values.languages).toEqual([]);
    expect(odd?.values).not.toHaveProperty('evil');
  });
});
