/**
 * A batch's insert, and when ClickHouse refuses the batch, the walk that finds the rows it refuses: plain
 * logic over a row count and the decisions recorded so far; inserting and recording are the caller's
 * (ingester.ts: ClickHouse and Redis).
 *
 * The refused batch is halved, each half inserted with a token of its own (`<token>:<lo>-<hi>`), a refused
 * half halved again, down to single rows. Each decision is recorded before it is acted on, so after a crash
 * a successor given the recorded decisions walks the same halves with the same tokens (ClickHouse drops
 * those already in) and never inserts a range whole that was split: every row counted once, whatever
 * ClickHouse answers the second time. A refusal writes nothing (insert-errors.ts), so a refused range's
 * rows are nowhere yet.
 */

/** What one insert of a range came to, retries included: `stopped` when the ingester stopped while it still failed. */
export type RangeOutcome = 'inserted' | 'stopped' | { refused: string };

export interface RefusedRowsPorts {
  /** Inserts rows `lo` to `hi` (exclusive) with this deduplication token, retrying what may pass later. */
  insert(lo: number, hi: number, token: string): Promise<RangeOutcome>;
  /**
   * Records a decision (field `<lo>-<hi>`: `split`, `inserted` or `refused <why>`) where a successor finds it;
   * the walk acts on it only once this resolves.
   */
  record(range: string, decision: string): Promise<void>;
  /** The whole batch was refused, with why: the walk starts. */
  refusedWhole?(reason: string): void;
}

/** A row ClickHouse refuses: its index in the batch, and why. */
export interface RefusedRowAt {
  row: number;
  reason: string;
}

const SPLIT = 'split';
const INSERTED = 'inserted';
const REFUSED = 'refused ';

/** The token a range of a refused batch is inserted with. */
export const rangeToken = (token: string, lo: number, hi: number): string => `${token}:${lo}-${hi}`;

/**
 * Inserts a batch of `count` rows with its token; if ClickHouse refuses it, inserts all but the rows it
 * refuses and returns those (in row order). `decided`: the decisions recorded for this batch so far (none for a
 * batch not yet refused): a batch with some goes on with its walk and is never inserted whole again, since what
 * its halves inserted would be counted twice if the whole were now accepted. `stopped`: left for a successor.
 */
export async function insertRefusingRows(
  count: number,
  token: string,
  decided: Readonly<Record<string, string>>,
  ports: RefusedRowsPorts,
): Promise<RefusedRowAt[] | 'stopped'> {
  const whole = `0-${count}`;
  let rootRefusal: string | undefined;
  if (Object.keys(decided).length === 0) {
    const outcome = await ports.insert(0, count, token);
    if (outcome === 'inserted') return [];
    if (outcome === 'stopped') return 'stopped';
    rootRefusal = outcome.refused;
    ports.refusedWhole?.(rootRefusal);
  } else if (decided[whole] === undefined) {
    // Ranges recorded for another row count (an admin of another version built the batch): not this batch's halves.
    throw new Error(`isolation of ${token} recorded for other rows`);
  }
  const refused: RefusedRowAt[] = [];
  const stack: [number, number][] = [[0, count]];
  while (stack.length > 0) {
    const [lo, hi] = stack.pop() as [number, number];
    const range = `${lo}-${hi}`;
    let decision = decided[range];
    if (decision === undefined) {
      // The whole batch was refused already, with the batch's own token; its halves have tokens of their own.
      const outcome =
        range === whole ? { refused: rootRefusal ?? '' } : await ports.insert(lo, hi, rangeToken(token, lo, hi));
      if (outcome === 'stopped') return 'stopped';
      decision = outcome === INSERTED ? INSERTED : hi - lo === 1 ? `${REFUSED}${outcome.refused}` : SPLIT;
      // An inserted range too: a successor skips it rather than count on ClickHouse's window of 10 000
      // tokens still holding its token, which a walk of thousands of refused rows could push out.
      await ports.record(range, decision);
    }
    if (decision === INSERTED) continue;
    if (decision === SPLIT) {
      const mid = lo + Math.floor((hi - lo) / 2);
      stack.push([mid, hi], [lo, mid]);
    } else {
      refused.push({ row: lo, reason: decision.replace(/^refused /, '') });
    }
  }
  return refused;
}
