import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { MovedSince } from './moved.ts';

// The sweep over a map kept and changed in place (the rotation's groups): whatever joins or leaves between passes,
// a key present for 2 * passes - 1 passes in a row is read in them, and a round's keys are read once each.

const PASSES = 4;
// The sweep itself never touches Redis.
const sweeper = () => new MovedSince(undefined as unknown as Redis, 'rotation', PASSES);

describe('the sweep over a map changed in place', () => {
  it('reads every key that stays within 2 * passes - 1 passes, whatever joins or leaves', () => {
    const op = fc.oneof(
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 40 }).map((key) => ({ add: key })) },
      { weight: 3, arbitrary: fc.integer({ min: 1, max: 40 }).map((key) => ({ remove: key })) },
      // A key whose value changes in place: it keeps its place.
      { weight: 1, arbitrary: fc.integer({ min: 1, max: 40 }).map((key) => ({ set: key })) },
      { weight: 4, arbitrary: fc.constant({ pass: true }) },
    );
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 30 }),
        fc.array(op, { maxLength: 120 }),
        (initial, ops) => {
          const all = new Map(initial.map((k) => [k, 0]));
          const moved = sweeper();
          // Per key: the pass since which it has been present without being read.
          const waiting = new Map(initial.map((k) => [k, 0]));
          let pass = 0;
          for (const o of [...ops, ...Array.from({ length: 2 * PASSES }, () => ({ pass: true }))]) {
            if ('add' in o) {
              if (!all.has(o.add)) waiting.set(o.add, pass);
              all.set(o.add, 0);
            } else if ('remove' in o) {
              all.delete(o.remove);
              waiting.delete(o.remove);
            } else if ('set' in o) {
              if (all.has(o.set)) all.set(o.set, (all.get(o.set) as number) + 1);
            } else {
              const read = moved.sweepKeys(all);
              expect(new Set(read).size).toBe(read.length);
              for (const k of read) {
                expect(all.has(k)).toBe(true);
                waiting.set(k, pass + 1);
              }
              pass++;
              for (const since of waiting.values()) expect(pass - since).toBeLessThan(2 * PASSES - 1);
            }
          }
        },
      ),
      {
        numRuns: 400,
        // The keys read by a round's first pass leave: what the round has left is more than its size less what it read.
        examples: [
          [
            Array.from({ length: 20 }, (_, i) => i + 1),
            [
              { pass: true },
              ...[1, 2, 3, 4, 5].map((remove) => ({ remove })),
              { pass: true },
              { pass: true },
              { pass: true },
            ],
          ],
        ],
      },
    );
  });

  it('reads each key once a round of `passes` passes while nothing changes', () => {
    const all = new Map(Array.from({ length: 10 }, (_, i) => [i + 1, 0]));
    const moved = sweeper();
    const rounds = [0, 1].map(() => Array.from({ length: PASSES }, () => moved.sweepKeys(all)));
    for (const round of rounds) expect(round.flat()).toEqual([...all.keys()]);
    expect(rounds[0]?.map((r) => r.length)).toEqual([3, 3, 2, 2]);
  });
});
