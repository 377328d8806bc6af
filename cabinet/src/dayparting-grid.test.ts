import { weekHours } from '@adnet/schemas/schedule';
import { describe, expect, it } from 'vitest';
import {
  cellsFromDayparting,
  cellsFromText,
  cellsToText,
  daypartingFromCells,
  describeDayparting,
} from './dayparting-grid.ts';

describe('the hour grid and the API dayparting', () => {
  it('paints a dayparting into the week as the engine reads it, and back to the same dayparting', () => {
    const d = { mon: [9, 10, 11, 17], fri: [0, 23] };
    const cells = cellsFromDayparting(d);
    expect(cells.map(Number)).toEqual([...weekHours(d)]);
    expect(daypartingFromCells(cells)).toEqual(d);
  });

  it('an empty grid is no dayparting (around the clock), and none is an empty grid', () => {
    expect(daypartingFromCells(cellsFromDayparting(null))).toBeNull();
    expect(cellsFromDayparting(undefined).filter(Boolean)).toHaveLength(0);
  });

  it('keeps the grid in a draft as 168 flags, and reads anything else as empty', () => {
    const cells = cellsFromDayparting({ sun: [23], tue: [0] });
    expect(cellsToText(cells)).toHaveLength(168);
    expect(cellsFromText(cellsToText(cells))).toEqual(cells);
    expect(cellsFromText('101').filter(Boolean)).toHaveLength(0);
  });

  it('says the hours in words, joining days with the same hours', () => {
    const nineToSix = [9, 10, 11, 12, 13, 14, 15, 16, 17];
    expect(describeDayparting(null)).toBe('around the clock');
    expect(
      describeDayparting({
        mon: nineToSix,
        tue: nineToSix,
        wed: nineToSix,
        thu: nineToSix,
        fri: [...nineToSix, 20],
        sun: [22, 23],
      }),
    ).toBe('Mon–Thu 09:00–18:00; Fri 09:00–18:00, 20:00–21:00; Sun 22:00–24:00');
    expect(describeDayparting({ sat: [0], sun: [0] })).toBe('Sat, Sun 00:00–01:00');
  });
});
