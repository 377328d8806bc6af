import { describe, expect, it } from 'vitest';
import { COUNTED_CLICK_RULES, FLOOD_PER_MINUTE, countedClickVerdict } from './counted-click-rules.ts';

const counting = (perMinute: number | undefined) => ({ countClick: () => Promise.resolve(perMinute) });

describe('counted click rules (every surface)', () => {
  it('the first click of its ticket, under the flood limit, is valid', async () => {
    expect(await countedClickVerdict(counting(1), 'b1', 'fp', 0)).toBeUndefined();
    expect(await countedClickVerdict(counting(FLOOD_PER_MINUTE), 'b1', 'fp', 0)).toBeUndefined();
  });
  it.each([
    ['duplicate', undefined],
    ['click_flood', FLOOD_PER_MINUTE + 1],
  ] as const)('%s', async (rule, perMinute) => {
    expect(await countedClickVerdict(counting(perMinute), 'b1', 'fp', 0)).toBe(rule);
  });
  it('counts under the ticket and the fingerprint it is given', async () => {
    const seen: unknown[] = [];
    const counters = { countClick: (...a: unknown[]) => (seen.push(a), Promise.resolve(1)) };
    await countedClickVerdict(counters, 'd:a1', 'fp', 7, 'at');
    expect(seen).toEqual([['d:a1', 'fp', 7, 'at']]);
  });
  it('names each rule once', () => {
    expect(new Set(COUNTED_CLICK_RULES.map((r) => r.name)).size).toBe(COUNTED_CLICK_RULES.length);
  });
});
