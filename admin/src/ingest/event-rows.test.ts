import type { EngineEvent } from '@adnet/schemas/events';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EVENT_COLUMNS, toRow, toRowValues } from './event-rows.ts';
import type { EventRow } from './event-rows.ts';

const click = (country: string | undefined) =>
  ({ id: 'e1', type: 'click', ts: 0, engine: 'x', click_id: 'c', invalid: false, charge_nano: 0, country }) as unknown as EngineEvent;

describe('toRow', () => {
  it('keeps an ISO country and drops any other text, so it never reaches the statistics as written', () => {
    expect(toRow(click('de')).country).toBe('de');
    for (const bad of ['=cmd|calc!A0', 'USA', 'zz', '<script>', '']) expect(toRow(click(bad)).country, bad).toBe('');
    expect(toRow(click(undefined)).country).toBe('');
  });

  it('sends every column of a row, by name or by position alike', () => {
    // A field added to EventRow and not to EVENT_COLUMNS would never reach a JSONCompactEachRow insert.
    expectTypeOf<Exclude<keyof EventRow, (typeof EVENT_COLUMNS)[number]>>().toEqualTypeOf<never>();
    const e = { ...click('fr'), site_domain: 'a\tb"c\n', source: 'x'.repeat(100), ts: Date.parse('2026-11-20T10:30:00.123Z') } as EngineEvent;
    const values = toRowValues(e);
    expect(values).toHaveLength(EVENT_COLUMNS.length);
    expect(Object.values(toRow(e))).toEqual(values);
    expect(toRow(e)).toMatchObject({ ts: '2026-11-20 10:30:00.123', site_domain: 'a\tb"c\n', source: 'x'.repeat(64), country: 'fr' });
  });
});
