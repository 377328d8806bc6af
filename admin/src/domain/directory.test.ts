import { describe, expect, it } from 'vitest';
import { directoryPage, landingDomain, matches } from './directory.ts';

interface Row {
  id: number;
  name: string;
  email: string;
  balance: number;
}
const rows: Row[] = [
  { id: 1, name: 'Spring sale', email: 'ann@example.com', balance: 500 },
  { id: 2, name: 'Winter push', email: 'bob@example.com', balance: 100 },
  { id: 3, name: 'spring again', email: 'cid@example.com', balance: 500 },
  { id: 10, name: 'Autumn', email: 'ann@other.test', balance: 0 },
];
const fields = {
  text: (r: Row) => [r.name, r.email],
  id: (r: Row) => r.id,
  keys: { id: (r: Row) => r.id, name: (r: Row) => r.name, balance: (r: Row) => r.balance },
};
const query = { q: '', sort: 'id' as const, dir: 'asc' as const, offset: 0, limit: 25 };

describe('directory pages', () => {
  it('finds rows by any of their texts, case-insensitively, and by id', () => {
    expect(directoryPage(rows, { ...query, q: 'SPRING' }, fields).items.map((r) => r.id)).toEqual([1, 3]);
    expect(directoryPage(rows, { ...query, q: 'ann@' }, fields).items.map((r) => r.id)).toEqual([1, 10]);
    expect(directoryPage(rows, { ...query, q: '#10' }, fields).items.map((r) => r.id)).toEqual([10]);
    expect(matches(rows[0], '1', fields)).toBe(true);
    expect(matches(rows[3], '1', fields)).toBe(false);
    expect(directoryPage(rows, { ...query, q: 'nothing like it' }, fields).total).toBe(0);
  });

  it('sorts by the key, both ways, ties by id so pages never overlap', () => {
    expect(directoryPage(rows, { ...query, sort: 'balance', dir: 'desc' }, fields).items.map((r) => r.id)).toEqual([
      1, 3, 2, 10,
    ]);
    expect(directoryPage(rows, { ...query, sort: 'name' }, fields).items.map((r) => r.name)).toEqual([
      'Autumn',
      'spring again',
      'Spring sale',
      'Winter push',
    ]);
  });

  it('cuts one page and counts every match', () => {
    const p = directoryPage(rows, { ...query, offset: 1, limit: 2 }, fields);
    expect(p).toMatchObject({ total: 4, offset: 1, limit: 2 });
    expect(p.items.map((r) => r.id)).toEqual([2, 3]);
    expect(directoryPage(rows, { ...query, offset: 10 }, fields).items).toEqual([]);
  });

  it('names the landing domain a moderator judges', () => {
    expect(landingDomain('https://shop.example.com/a?b=1')).toBe('shop.example.com');
    expect(landingDomain('not a url')).toBe('not a url');
  });
});
