import type { EngineEvent } from '@adnet/schemas/events';
import { unpack } from '@adnet/schemas/wire/msgpack';
import { describe, expect, it } from 'vitest';
import { refusedEventLetters, unreadableEntryLetter } from './dead-letters.ts';

const event = (id: string) => ({ id, type: 'impression' }) as unknown as EngineEvent;

describe('dead letters as written', () => {
  it('one letter per entry, in the order entries first appear, its refused events packed as an entry of their own', () => {
    const letters = refusedEventLetters([
      { entryId: '1-0', event: event('a'), reason: 'too big' },
      { entryId: '2-0', event: event('b'), reason: 'bad ts' },
      { entryId: '1-0', event: event('c'), reason: 'too big' },
      { entryId: '1-0', event: event('d'), reason: 'bad id' },
    ]);
    expect(letters.map((l) => l.slice(0, 6))).toEqual([
      ['id', '1-0', 'error', 'too big; bad id', 'n', 3],
      ['id', '2-0', 'error', 'bad ts', 'n', 1],
    ]);
    expect(letters.map((l) => unpack<{ id: string }[]>(l[7] as Buffer).map((e) => e.id))).toEqual([
      ['a', 'c', 'd'],
      ['b'],
    ]);
  });

  it('cuts a long reason to 500 characters; an unreadable entry keeps its bytes as they were', () => {
    const [letter] = refusedEventLetters([{ entryId: '1-0', event: event('a'), reason: 'x'.repeat(900) }]);
    expect((letter?.[3] as string).length).toBe(500);
    const bytes = Buffer.from([0xc1]);
    expect(unreadableEntryLetter('3-0', 'y'.repeat(600), bytes)).toEqual([
      'id',
      '3-0',
      'error',
      'y'.repeat(500),
      'b',
      bytes,
    ]);
  });
});
