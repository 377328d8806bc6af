import { describe, expect, it } from 'vitest';
import { NEW_CAMPAIGN } from './campaign-draft.ts';
import { cellsFromDayparting, cellsToText } from './dayparting-grid.ts';
import { summarize } from './campaign-summary.ts';

const names = { audiences: new Map([['3', 'Cart abandoners']]) };

describe('the summary in words', () => {
  it('says every choice by name, section by section', () => {
    const sections = summarize(
      {
        ...NEW_CAMPAIGN,
        name: 'Winter',
        vertical: 'ecommerce',
        format: 'in_page_push',
        bid_usd: '1.5',
        daily_budget_usd: '50',
        geo_include: ['de', 'us'],
        languages: ['de', 'fr'],
        audiences_include: ['3'],
        audiences_exclude: ['9'],
        target_cpa_usd: '12',
        'frequency_cap.impressions': '3',
        'frequency_cap.period_hours': '24',
        start_at: '2026-12-01T09:00',
        timezone: 'Europe/Berlin',
        hours: cellsToText(cellsFromDayparting({ mon: [9, 10], tue: [9, 10] })),
        'sources.mode': 'include',
        'sources.zones': 'a1, b2',
        'sources.sites': '17',
      },
      names,
      { editing: false },
    );
    expect(sections.map((s) => s.step)).toEqual(['basics', 'audience', 'bid', 'schedule', 'creatives']);
    const text = sections.flatMap((s) => s.lines).join('\n');
    expect(text).toContain('Format: in page push');
    expect(text).toContain('Countries: Germany, United States');
    expect(text).toContain('Languages: German, French');
    expect(text).toContain('Only people in: Cart abandoners');
    expect(text).toContain('Never people in: audience #9');
    expect(text).toContain('Traffic sources: only on 2 zone(s) and 1 site(s)');
    expect(text).toContain('CPM bid: $1.50 per thousand impressions');
    expect(text).toContain('Target CPA: $12.00 per conversion');
    expect(text).toContain('test budget per zone twice the target');
    expect(text).toContain('Frequency cap: at most 3 per user in 24 h');
    expect(text).toContain('Starts: 2026-12-01 09:00 (Europe/Berlin)');
    expect(text).toContain('Ends: never');
    expect(text).toContain('Hours (Europe/Berlin): Mon, Tue 09:00–11:00');
  });

  it('says "all" for what is not narrowed, and a pop has its landing URL and no creatives section', () => {
    const sections = summarize(
      {
        ...NEW_CAMPAIGN,
        format: 'popunder',
        landing_url: 'https://x.example/?c={click_id}',
        bid_type: 'cpc',
        bid_usd: '0.002',
      },
      names,
      { editing: false },
    );
    expect(sections.map((s) => s.step)).not.toContain('creatives');
    const text = sections.flatMap((s) => s.lines).join('\n');
    expect(text).toContain('Landing URL: https://x.example/?c={click_id}');
    expect(text).toContain('Countries: all');
    expect(text).toContain('Audiences: anyone');
    expect(text).toContain('Traffic sources: all');
    expect(text).toContain('CPC bid: $0.002 per click');
    expect(text).toContain('Target CPA: none');
    expect(text).toContain('Hours (UTC): around the clock');
  });
});
