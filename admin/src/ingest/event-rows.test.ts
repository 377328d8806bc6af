import type { EngineEvent } from '@adnet/schemas/events';
import { describe, expect, it } from 'vitest';
import { toRow } from './event-rows.ts';

const click = (country: string | undefined) =>
  ({ id: 'e1', type: 'click', ts: 0, engine: 'x', click_id: 'c', invalid: false, charge_nano: 0, country }) as unknown as EngineEvent;

describe('toRow', () => {
  it('keeps an ISO country and drops any other text, so it never reaches the statistics as written', () => {
    expect(toRow(click('de')).country).toBe('de');
    for (const bad of ['=cmd|calc!A0', 'USA', 'zz', '<script>', '']) expect(toRow(click(bad)).country, bad).toBe('');
    expect(toRow(click(undefined)).country).toBe('');
  });
});
