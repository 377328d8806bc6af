import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { insertRefusingRows, rangeToken } from './refused-rows.ts';
import type { RangeOutcome, RefusedRowAt } from './refused-rows.ts';

const TOKEN = 'batch';

/** A port's answer a turn later, as Redis's and ClickHouse's come (what `act` throws, a rejection). */
const later = <T>(act: () => T): Promise<T> => Promise.resolve().then(act);

/**
 * ClickHouse as the walk sees it: a range with a row it refuses is refused whole and writes nothing; a block
 * whose token is among the last `window` tokens it took is dropped (its deduplication; the server keeps
 * 10 000, a window as small as one is what the walk must not need more than).
 */
class Table {
  /** Blocks written: token and rows. */
  readonly blocks: { token: string; lo: number; hi: number }[] = [];
  constructor(
    public refuses: Set<number>,
    private readonly window: number,
  ) {}

  insert(lo: number, hi: number, token: string): RangeOutcome {
    for (let row = lo; row < hi; row++) if (this.refuses.has(row)) return { refused: `row ${row} refused` };
    if (!this.blocks.slice(-this.window).some((b) => b.token === token)) this.blocks.push({ token, lo, hi });
    return 'inserted';
  }

  /** How many times each row was written. */
  writes(count: number): number[] {
    const out = new Array<number>(count).fill(0);
    for (const b of this.blocks) for (let row = b.lo; row < b.hi; row++) out[row] = (out[row] as number) + 1;
    return out;
  }
}

/** Where and how one run of the walk dies: at its `at`-th port call, before or after that call took effect, or stopped. */
interface Crash {
  at: number;
  how: 'before' | 'after' | 'stopped';
}

class Crashed extends Error {}

/**
 * Runs the walk as ingesters do, each run dying as `crashes` says and its successor going on with the decisions
 * recorded (the Redis hash), until one finishes. `accepts`: rows ClickHouse takes again after each crash
 * (a constraint dropped meanwhile). Returns the finished run's answer and what was seen on the way.
 */
async function walk(
  count: number,
  { refuses, window }: { refuses: number[]; window: number },
  crashes: Crash[],
  accepts: number[][] = [],
) {
  const table = new Table(new Set(refuses), window);
  const recorded: Record<string, string> = {};
  const problems: string[] = [];
  const tokenRange = new Map<string, string>();
  for (let run = 0; ; run++) {
    const crash = crashes[run];
    let calls = 0;
    // A port call: dies here if this run's crash is due.
    const step = <T>(act: () => T, stopped: T): T => {
      const due = crash !== undefined && calls++ === crash.at;
      if (!due) return act();
      if (crash.how === 'stopped') return stopped;
      if (crash.how === 'after') act();
      throw new Crashed();
    };
    try {
      const result = await insertRefusingRows(
        count,
        TOKEN,
        { ...recorded },
        {
          insert: (lo, hi, token) => {
            const range = `${lo}-${hi}`;
            if (recorded[range] === 'split') problems.push(`${range} inserted whole after it was split`);
            if (token !== (lo === 0 && hi === count ? TOKEN : rangeToken(TOKEN, lo, hi)))
              problems.push(`${range} inserted as ${token}`);
            if ((tokenRange.get(token) ?? range) !== range)
              problems.push(`${token} used for ${tokenRange.get(token)} and ${range}`);
            tokenRange.set(token, range);
            return later(() => step(() => table.insert(lo, hi, token), 'stopped' as const));
          },
          record: (range, decision) =>
            later(() =>
              step(() => {
                recorded[range] = decision;
              }, undefined),
            ),
        },
      );
      if (result !== 'stopped') return { result, table, recorded, problems, runs: run + 1 };
    } catch (err) {
      if (!(err instanceof Crashed)) throw err;
    }
    for (const row of accepts[run] ?? []) table.refuses.delete(row);
  }
}

const rows = (result: RefusedRowAt[]) => result.map((r) => r.row);

/** A row count, the rows ClickHouse refuses among them (at least `minRefused`), its deduplication window. */
const batches = (minRefused = 0) =>
  fc.integer({ min: Math.max(1, minRefused), max: 48 }).chain((count) =>
    fc.record({
      count: fc.constant(count),
      refuses: fc.uniqueArray(fc.nat(count - 1), { minLength: minRefused, maxLength: count }),
      window: fc.integer({ min: 1, max: 3 }),
    }),
  );
/** Crashes at a port call early in a run (where a walk of one refused row is) or anywhere in a long one. */
const crashList = fc.array(
  fc.record({
    at: fc.oneof(fc.nat(12), fc.nat(120)),
    how: fc.constantFrom('before' as const, 'after' as const, 'stopped' as const),
  }),
  { minLength: 1, maxLength: 6 },
);
const RUNS = { numRuns: 400 };

describe('insertRefusingRows', () => {
  it('(a, b) returns exactly the refused rows, each with its refusal, and inserts every other row once', async () => {
    await fc.assert(
      fc.asyncProperty(batches(), async ({ count, refuses, window }) => {
        const { result, table, problems } = await walk(count, { refuses, window }, []);
        expect(rows(result)).toEqual([...refuses].sort((a, b) => a - b));
        for (const r of result) expect(r.reason).toBe(`row ${r.row} refused`);
        expect(table.writes(count)).toEqual(Array.from({ length: count }, (_, row) => (refuses.includes(row) ? 0 : 1)));
        expect(problems).toEqual([]);
      }),
    );
  });

  it('(c, d) after crashes at any step, successors going on with the recorded decisions give the same rows, each row written once, no split range inserted whole', async () => {
    await fc.assert(
      fc.asyncProperty(batches(1), crashList, async ({ count, refuses, window }, crashes) => {
        const { result, table, problems } = await walk(count, { refuses, window }, crashes);
        expect(rows(result)).toEqual([...refuses].sort((a, b) => a - b));
        expect(table.writes(count)).toEqual(Array.from({ length: count }, (_, row) => (refuses.includes(row) ? 0 : 1)));
        expect(problems).toEqual([]);
      }),
      RUNS,
    );
  });

  it('(c, d) when ClickHouse takes rows after a crash that it refused before, each row is written once or dead-lettered, never both, never twice', async () => {
    await fc.assert(
      fc.asyncProperty(
        batches(1).chain((b) =>
          fc.record({
            batch: fc.constant(b),
            crashes: crashList,
            accepts: fc.array(fc.subarray(b.refuses), { maxLength: 6 }),
          }),
        ),
        async ({ batch: { count, refuses, window }, crashes, accepts }) => {
          const { result, table, problems } = await walk(count, { refuses, window }, crashes, accepts);
          const dead = new Set(rows(result));
          for (const row of dead) expect(refuses).toContain(row);
          expect(table.writes(count)).toEqual(Array.from({ length: count }, (_, row) => (dead.has(row) ? 0 : 1)));
          expect(problems).toEqual([]);
        },
      ),
      RUNS,
    );
  });

  it('walks the halves in the order, with the tokens and the records, of the walk it replaced (a batch isolated under it resumes the same)', async () => {
    const { result, table, recorded } = await walk(5, { refuses: [3], window: 1 }, []);
    expect(result).toEqual([{ row: 3, reason: 'row 3 refused' }]);
    expect(table.blocks.map((b) => b.token)).toEqual(['batch:0-2', 'batch:2-3', 'batch:4-5']);
    expect(Object.entries(recorded)).toEqual([
      ['0-5', 'split'],
      ['0-2', 'inserted'],
      ['2-5', 'split'],
      ['2-3', 'inserted'],
      ['3-5', 'split'],
      ['3-4', 'refused row 3 refused'],
      ['4-5', 'inserted'],
    ]);
  });

  it('goes on from decisions recorded in Redis: skips inserted ranges, never inserts a split range, dead-letters recorded refusals as they were', async () => {
    const inserts: string[] = [];
    const records: string[] = [];
    const result = await insertRefusingRows(
      5,
      TOKEN,
      { '0-5': 'split', '0-2': 'inserted', '2-5': 'split', '3-5': 'split', '3-4': 'refused VIOLATED_CONSTRAINT' },
      {
        insert: (lo, hi, token) => later(() => (inserts.push(token), 'inserted' as const)),
        record: (range, decision) => later(() => void records.push(`${range} ${decision}`)),
      },
    );
    expect(result).toEqual([{ row: 3, reason: 'VIOLATED_CONSTRAINT' }]);
    expect(inserts).toEqual(['batch:2-3', 'batch:4-5']);
    expect(records).toEqual(['2-3 inserted', '4-5 inserted']);
  });

  it('refuses to go on with decisions recorded for another row count', async () => {
    const ports = { insert: () => later(() => 'inserted' as const), record: () => later(() => undefined) };
    await expect(insertRefusingRows(4, TOKEN, { '0-5': 'split' }, ports)).rejects.toThrow('recorded for other rows');
  });
});
