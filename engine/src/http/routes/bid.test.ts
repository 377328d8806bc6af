import type { EngineEvent } from '@adnet/schemas/events';
import { describe, expect, it } from 'vitest';
import { bidPathContext, bidRequestOf } from '../../context-fixture.ts';
import { buildIndex } from '../../index/engine-index.ts';
import { campaignFixture, creativeFixture } from '../../index/fixtures.ts';
import { bidRoute } from './bid.ts';

const index = buildIndex(
  {
    campaign: new Map([[1, campaignFixture({ id: 1 })]]),
    creative: new Map([[1, creativeFixture({ id: 1 })]]),
    partner: new Map([[1, { id: 1, name: 'x', allowed_ips: ['127.0.0.1'], qps_limit: 1_000, status: 'active', created_at: '', updated_at: '' }]]),
    site: new Map(),
    zone: new Map(),
    deal: new Map(),
  },
  '1-0',
);
function route(clock: () => number) {
  const events: EngineEvent[] = [];
  const given: number[] = [];
  const ctx = bidPathContext(index, {
    budget: { tryTake: () => true, giveBack: (_c, price) => void given.push(price), recordSpend: () => undefined },
    emit: (e) => void events.push(e),
    now: clock,
  });
  const body = Buffer.from(JSON.stringify({ id: 'r1', imp: [{ id: '1', banner: { w: 300, h: 250 } }], tmax: 100 }));
  const answer = bidRoute(ctx)(bidRequestOf(body));
  return { answer, events, given };
}

describe('bid route deadline', () => {
  it('answers in time with the bid and records it', () => {
    const { answer, events } = route(() => 0);
    expect(answer.status).toBe(200);
    expect(events.map((e) => e.type)).toEqual(['bid']);
  });

  it('past the deadline answers 204, gives the budget back and records no bid that was never sent', () => {
    let t = 0;
    const { answer, events, given } = route(() => (t += 101));
    expect(answer.status).toBe(204);
    expect(given).toHaveLength(1);
    expect(events.map((e) => (e.type === 'nobid' ? e.reason : e.type))).toEqual(['deadline']);
  });
});
