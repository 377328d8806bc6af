import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { EVENT_TYPES, NO_BID_REASONS, engineEventSchema } from './events.ts';

describe('events contract', () => {
  it('the OpenRTB page lists exactly the typed no-bid reasons', () => {
    const page = readFileSync(new URL('../../docs/openrtb.md', import.meta.url), 'utf8');
    const section = /with its reason: ([^)]+)\)/.exec(page)?.[1] ?? '';
    const listed = [...section.matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...NO_BID_REASONS].sort());
  });

  it('names every event type once and rejects a no-bid without a known reason', () => {
    expect(new Set(EVENT_TYPES).size).toBe(EVENT_TYPES.length);
    expect(EVENT_TYPES).toEqual([
      'bid',
      'nobid',
      'win',
      'imp',
      'impression',
      'click',
      'vast',
      'uncounted',
      'viewable',
      'conversion',
      'fallback',
      'demand_impression',
    ]);
    const nobid = { id: 'e', type: 'nobid', ts: 1, engine: 'x' };
    expect(engineEventSchema.safeParse({ ...nobid, reason: 'budget' }).success).toBe(true);
    expect(engineEventSchema.safeParse({ ...nobid, reason: 'made_up' }).success).toBe(false);
    expect(engineEventSchema.safeParse({ id: 'e', type: 'win', ts: 1, engine: 'x', campaign_id: 1 }).success).toBe(
      false,
    );
  });
});
