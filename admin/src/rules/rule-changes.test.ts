import { OS_FAMILIES } from '@adnet/schemas/api';
import { describe, expect, it } from 'vitest';
import { movedMultiplier, narrowedList } from './rule-changes.ts';

describe('movedMultiplier', () => {
  it('moves by the percentage, to three places, within 0.1-10', () => {
    expect(movedMultiplier(1, 'raise', 20)).toBe(1.2);
    expect(movedMultiplier(1, 'lower', 20)).toBe(0.8);
    expect(movedMultiplier(1.2, 'lower', 15)).toBe(1.02);
    expect(movedMultiplier(0.333, 'raise', 10)).toBe(0.366);
    expect(movedMultiplier(9, 'raise', 50)).toBe(10);
    expect(movedMultiplier(0.15, 'lower', 100)).toBe(0.1);
  });
});

describe('narrowedList', () => {
  it('takes the value out of the list, an empty list standing for every value', () => {
    expect(narrowedList(['us', 'de'], [], 'us')).toEqual(['de']);
    expect(narrowedList([], OS_FAMILIES, 'ios')).toEqual(OS_FAMILIES.filter((o) => o !== 'ios'));
  });
  it('refuses to empty the list or to take out what is not targeted', () => {
    expect(narrowedList(['us'], [], 'us')).toBeUndefined();
    expect(narrowedList(['us', 'de'], [], 'fr')).toBeUndefined();
    expect(narrowedList([], [], 'fr')).toBeUndefined();
  });
});
