import type { ClickHouseClient } from '@clickhouse/client';
import type { EngineEvent } from '@adnet/schemas/events';
import { envSchema } from '@adnet/schemas/config';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import { unpack } from '@adnet/schemas/wire/msgpack';
import { readGroupEntries } from '@adnet/schemas/wire/event-stream';
import type { ReadGroupReply } from '@adnet/schemas/wire/event-stream';
import { BatchBuilder } from './batch-builder.ts';
import { decodeEntries } from './build-rows.ts';
import type { RejectedEvent } from './build-rows.ts';
import { addDeadLetters, refusedEventLetters, unreadableEntryLetter } from './dead-letters.ts';
import type { DeadLetterFields, RefusedEvent } from './dead-letters.ts';
import { INGEST_GROUP, eventBacklog } from './event-backlog.ts';
import type { EventBacklog } from './event-backlog.ts';
import { EventInserter, batchRows } from './event-insert.ts';
import type { EventBatchRows } from './event-insert.ts';
import { rowProblem } from './event-rows.ts';
import { classifyInsertError } from './insert-errors.ts';
import { insertRefusingRows } from './refused-rows.ts';
import type { RangeOutcome } from './refused-rows.ts';

export { eventInsertSettings } from './event-insert.ts';
export { INGEST_GROUP, eventBacklog } from './event-backlog.ts';
export type { EventBacklog } from './event-backlog.ts';
/**
 * For the ingester's own connection: its reads block at most 500 ms, so an answer later than this means
 * the connection stopped answering (a node lost mid-failover); the round fails and is retried.
 */
export const INGEST_COMMAND_TIMEOUT_MS = 10_000;
// In the stream's slot ({events} hashes like `events`): one MULTI acknowledges entries and drops their records.
const TOKEN_OF_ENTRY = '{events}:ingest:entry-token';
const batchKey = (token: string) => `{events}:ingest:batch:${token}`;
/**
 * A refused batch's isolation as decided so far (refused-rows.ts): field `<lo>-<hi>` (a range of its rows)
 * is `split` (refused whole: its halves are inserted instead), `inserted`, or `refused <why>` (one row,
 * dead-lettered).
 */
const isolationKey = (token: string) => `{events}:ingest:isolation:${token}`;
const RECORD_TTL_S = 7 * 86_400;
/**
 * Events asked for per XREADGROUP (in whole entries): replies of about 1 MB. Replies of a whole batch
 * (50 000 events, 6 MB and more) cost the main thread about twice the wall time per event to receive
 * and parse, and a first guess of 100 events an entry made the first batch five times INGEST_BATCH_ROWS
 * (bench/results/ab-history.md, goal 5).
 */
const READ_EVENTS = 10_000;

export interface IngesterOptions {
  /** A connection of its own, without auto-pipelining: XREADGROUP blocks it. */
  redis: Redis;
  clickhouse: ClickHouseClient;
  database: string;
  log: Logger;
  /** Insert once this many rows are waiting... */
  batchRows?: number;
  /** ...or this long after the first one arrived. */
  flushMs?: number;
  /** Entries pending this long at a consumer that stopped answering are taken over. */
  claimIdleMs?: number;
  consumer?: string;
  /**
   * `<database>.events` is a Distributed table (CLICKHOUSE_CLUSTER): insert
   * synchronously, so an acknowledged insert is on every shard it touches, each
   * part deduplicated there by the batch's token (admin/src/clickhouse/migrations.ts).
   */
  distributed?: boolean;
  /**
   * Embedded chDB: batches go to ClickHouse as RowBinary files in this folder (the process's own), which
   * chDB reads, parsing them at a fraction of a text body's cost (event-insert.ts). Absent (a server):
   * rows in the insert's body.
   */
  stagingDir?: string;
  /**
   * With RowBinary bodies (`stagingDir`), decode entries and write bodies on a worker thread while the main
   * thread reads the next batch (default); false: on the main thread, as before (bench A/B).
   */
  buildInWorker?: boolean;
}

type Entry = [id: string, fields: Buffer[]];
/**
 * An entry as read: its events still packed (field `b`), counted by its field `n`; decoded only where the
 * rows are built (batch-builder.ts, on a worker thread for RowBinary).
 */
type ReadEntry = { id: string; packed: Buffer | undefined; count: number };
/** A batch recorded in Redis under its token. */
interface Recorded {
  ids: string[];
  token: string;
  /** Its entries that carry events. */
  packed: ReadEntry[];
}
/** ...its rows built, ready to insert. */
interface Prepared extends Recorded {
  rows: EventBatchRows;
  /** The entries the rows were built from, in order (`packed` without those moved to the dead letters). */
  built: ReadEntry[];
}
/** A row of a batch as built: which entry it came from, the event. */
interface KeptRow {
  entryId: string;
  event: EngineEvent;
}

/**
 * Moves events from the Redis stream into ClickHouse, exactly once.
 *
 * Delivery is at least once (a consumer group; an entry is acknowledged only
 * after ClickHouse accepted its rows). Counting is exactly once because every
 * insert carries a deduplication token, and before inserting, the batch's
 * composition (its entry ids) is recorded in Redis under that token: a retry,
 * a restart, or another ingester taking over the entries re-inserts the very
 * same batch with the very same token, which ClickHouse then ignores, in the
 * raw table and in the hourly view alike.
 */
export class Ingester {
  readonly consumer: string;
  private running = false;
  /** stop() was called: a quiesce that ends later must not start reading again. */
  private stopped = false;
  private loop: Promise<void> | undefined;
  private readonly batchRows: number;
  private readonly flushMs: number;
  private readonly claimIdleMs: number;
  /** Events per stream entry lately, to size XREADGROUP's COUNT; first guess: a full engine entry (its batcher's 500). */
  private eventsPerEntry = 500;
  private readonly inserter: EventInserter;
  private readonly builder: BatchBuilder;
  /**
   * A second connection for isolation's records (`isolate`), opened at the first: the ingester's own is often
   * blocked in XREADGROUP (up to 500 ms) reading the next batch, which made each halving step wait that long.
   */
  private side: Redis | undefined;
  inserted = 0;
  batches = 0;
  failures = 0;
  /** Dead letters written (EVENT_DEAD_LETTERS): an unreadable entry, or an entry's events the table refuses. */
  deadLetters = 0;
  /** Events moved to the dead letters one by one, refused by the row builder or by ClickHouse. */
  refusedEvents = 0;

  constructor(private readonly o: IngesterOptions) {
    this.consumer = o.consumer ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.batchRows = o.batchRows ?? envSchema.shape.INGEST_BATCH_ROWS.parse(undefined);
    this.flushMs = o.flushMs ?? 1_000;
    this.claimIdleMs = o.claimIdleMs ?? 30_000;
    this.inserter = new EventInserter({
      clickhouse: o.clickhouse,
      database: o.database,
      distributed: o.distributed ?? false,
      ...(o.stagingDir === undefined ? {} : { stagingDir: o.stagingDir }),
    });
    this.builder = new BatchBuilder({ rowBinary: this.inserter.rowBinary, inWorker: o.buildInWorker ?? true });
  }

  async start(): Promise<void> {
    await this.o.redis.xgroup('CREATE', EVENT_STREAM, INGEST_GROUP, '0', 'MKSTREAM').catch((err: Error) => {
      if (!err.message.includes('BUSYGROUP')) throw err;
    });
    this.builder.warm();
    this.running = true;
    this.loop = this.run();
  }

  /** Finishes the batch in hand (if ClickHouse answers), then stops; what is left stays pending for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.running = false;
    await this.loop;
    await this.builder.close();
    await this.side?.quit().catch(() => undefined);
    this.side = undefined;
  }

  /**
   * Runs `fn` with nothing in flight: the batch in hand is inserted and acknowledged first, and no entry is
   * read until `fn` settles. A backup takes its two snapshots in here (docs/backup.md): ClickHouse then holds
   * exactly the entries the group has acknowledged, so a restore re-reads none of them and loses none.
   */
  async quiesce<T>(fn: () => Promise<T>): Promise<T> {
    if (!this.running) return fn();
    this.running = false;
    await this.loop;
    try {
      return await fn();
    } finally {
      if (!this.stopped) {
        this.running = true;
        this.loop = this.run();
      }
    }
  }

  backlog(): Promise<EventBacklog> {
    return eventBacklog(this.o.redis);
  }

  /**
   * Reads and records the next batch while the one before is built (on the builder's worker thread) and
   * then inserted (chDB works on threads of its own; a server works in another process), so none waits
   * for the others. One batch building-then-inserting at a time: batches are acknowledged in the order
   * they were read, and recovery runs only with none in flight (it would take the in-flight batch's
   * pending entries for its own).
   */
  private async run(): Promise<void> {
    let lastRecovery = 0;
    let inFlight: Promise<void> = Promise.resolve();
    while (this.running) {
      try {
        if (Date.now() - lastRecovery > this.claimIdleMs / 2) {
          await inFlight;
          await this.recover();
          lastRecovery = Date.now();
        }
        const entries = await this.readNew();
        if (entries.length === 0) continue;
        const batch = await this.record(entries);
        const rows = this.rowsOf(batch);
        rows.catch(() => undefined); // seen through inFlight below
        await inFlight;
        inFlight = rows.then((built) => this.insertAndAck({ ...batch, ...built }));
        // Seen at the next await of it; until then a rejection must not count as unhandled.
        inFlight.catch(() => undefined);
      } catch (err) {
        await inFlight.catch(() => undefined);
        inFlight = Promise.resolve();
        this.failures++;
        // What this round had read is pending on this consumer: take it up again next round, not in 15 s.
        lastRecovery = 0;
        this.o.log.warn({ err: (err as Error).message, consumer: this.consumer }, 'ingest round failed');
        await sleep(Math.min(5_000, 200 * this.failures));
      }
    }
    await inFlight.catch((err: unknown) => {
      this.failures++;
      this.o.log.warn(
        { err: (err as Error).message, consumer: this.consumer },
        'last insert failed; its batch stays pending',
      );
    });
  }

  /** New entries until batchRows rows or flushMs have passed. */
  private async readNew(): Promise<ReadEntry[]> {
    const entries: ReadEntry[] = [];
    let rows = 0;
    const deadline = Date.now() + this.flushMs;
    while (this.running && rows < this.batchRows) {
      const wait = deadline - Date.now();
      if (wait <= 0) break;
      // Entries for about READ_EVENTS of the rows still wanted, at the size entries have had so far.
      const count = Math.min(
        1_000,
        Math.max(1, Math.ceil(Math.min(this.batchRows - rows, READ_EVENTS) / this.eventsPerEntry)),
      );
      const got = await this.read(Math.max(1, Math.min(wait, 500)), count);
      for (const [id, fields] of got) {
        const entry = readEntry(id, fields);
        entries.push(entry);
        rows += entry.count;
        this.eventsPerEntry = Math.max(1, this.eventsPerEntry * 0.9 + entry.count * 0.1);
      }
      if (entries.length === 0 && got.length === 0 && !this.running) break;
    }
    return entries;
  }

  private async read(blockMs: number, count: number): Promise<Entry[]> {
    const reply = (await this.o.redis.callBuffer('XREADGROUP', [
      'GROUP',
      INGEST_GROUP,
      this.consumer,
      'COUNT',
      count,
      'BLOCK',
      blockMs,
      'STREAMS',
      EVENT_STREAM,
      '>',
    ])) as ReadGroupReply;
    return readGroupEntries(reply);
  }

  /**
   * Records the batch's composition under its token (a new batch). The record is in Redis before any
   * insert, so whatever happens next, a retry re-inserts exactly these entries with exactly this token.
   */
  private async record(entries: ReadEntry[], knownToken?: string): Promise<Recorded> {
    const ids = entries.map((e) => e.id);
    const token = knownToken ?? createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 40);
    if (!knownToken) {
      const entryTokens: string[] = [];
      for (const id of ids) entryTokens.push(id, token);
      // One HSET for all the batch's entries: one command, where one per entry cost a reply each.
      await this.o.redis
        .multi()
        .rpush(batchKey(token), ...ids)
        .expire(batchKey(token), RECORD_TTL_S)
        .hset(TOKEN_OF_ENTRY, ...entryTokens)
        .exec();
    }
    return { ids, token, packed: entries.filter((e) => e.packed) };
  }

  /**
   * The batch's rows. An entry that cannot become rows (not msgpack, not a list of events: a writer's bug
   * or a version the ingester does not know) fails every build of its batch, and recovery would retry that
   * batch forever, with every later event waiting behind it: such entries go to the dead letters and the
   * rest of the batch goes on. An event whose values do not fit the table (event-rows.ts `rowProblem`) is
   * left out of the rows by the build and goes to the dead letters alone. The sorting is the same at every
   * retry, so a batch re-inserted after a crash has the same rows under the same token and is still counted once.
   */
  private async rowsOf(batch: Recorded): Promise<{ rows: EventBatchRows; built: ReadEntry[] }> {
    const packed = batch.packed.map((e) => e.packed as Buffer);
    let built = batch.packed;
    let result;
    try {
      result = await this.builder.build(packed);
    } catch (err) {
      const problems = this.builder.problems(packed);
      // Every entry builds alone: the build itself failed (its worker died), which a retry mends.
      if (problems.every((p) => p === undefined)) throw err;
      built = [];
      const dead: [ReadEntry, string][] = [];
      batch.packed.forEach((e, i) => {
        const problem = problems[i];
        if (problem === undefined) built.push(e);
        else dead.push([e, problem]);
      });
      // Kept before the batch is acknowledged: a crash in between writes them again, never loses them.
      await this.writeDeadLetters(dead.map(([e, problem]) => unreadableEntryLetter(e.id, problem, e.packed as Buffer)));
      this.o.log.error(
        { entries: dead.length, token: batch.token, first: dead[0]?.[1] },
        'stream entries that are not events moved to the dead letters',
      );
      result = await this.builder.build(built.map((e) => e.packed as Buffer));
    }
    if (result.rejected.length > 0)
      await this.deadLetterRows(batch.token, this.rejectedRows(built, result.rejected), 'row builder');
    return { rows: result.rows, built };
  }

  /** The events the build left out, read again from their entries (rare: decoded here, on the main thread). */
  private rejectedRows(built: ReadEntry[], rejected: RejectedEvent[]): RefusedEvent[] {
    const decoded = new Map<number, EngineEvent[]>();
    return rejected.map(({ entry, event, reason }) => {
      const e = built[entry] as ReadEntry;
      let events = decoded.get(entry);
      if (!events) decoded.set(entry, (events = unpack<EngineEvent[]>(e.packed as Buffer)));
      return { entryId: e.id, event: events[event] as EngineEvent, reason };
    });
  }

  /** Refused events to the dead letters, one letter per entry (dead-letters.ts). */
  private async deadLetterRows(token: string, refused: RefusedEvent[], by: string): Promise<void> {
    const letters = refusedEventLetters(refused);
    await this.writeDeadLetters(letters);
    this.refusedEvents += refused.length;
    this.o.log.error(
      { events: refused.length, entries: letters.length, token, by, first: refused[0]?.reason },
      'events the events table refuses moved to the dead letters',
    );
  }

  private async writeDeadLetters(letters: DeadLetterFields[]): Promise<void> {
    await addDeadLetters(this.o.redis, letters);
    this.deadLetters += letters.length;
  }

  /**
   * Inserts a prepared batch with its token (retrying while running), then acknowledges it. A batch ClickHouse
   * refuses (insert-errors.ts) has its refused rows isolated (refused-rows.ts) and dead-lettered, the rest
   * inserted; each decision of that walk recorded in Redis before it is acted on. A batch recovered with an
   * isolation under way goes on with it, never inserted whole again.
   */
  private async insertAndAck(batch: Prepared, recovered = false): Promise<void> {
    const { ids, token, rows } = batch;
    const decided = recovered ? await this.o.redis.hgetall(isolationKey(token)) : {};
    let kept: KeptRow[] | undefined;
    const keptRows = (): KeptRow[] => (kept ??= this.keptRows(batch));
    // An isolation under way: its rows are needed, and must be this batch's, before any step of it.
    if (Object.keys(decided).length > 0) keptRows();
    const key = isolationKey(token);
    const result = await insertRefusingRows(rows.count, token, decided, {
      insert: (lo, hi, rangeToken) =>
        this.insertRetrying(
          lo === 0 && hi === rows.count
            ? rows
            : batchRows(
                keptRows()
                  .slice(lo, hi)
                  .map((r) => r.event),
                this.inserter.rowBinary,
              ),
          rangeToken,
        ),
      record: async (range, decision) => {
        this.side ??= this.o.redis.duplicate();
        await this.side.multi().hset(key, range, decision).expire(key, RECORD_TTL_S).exec();
      },
      refusedWhole: (reason) => {
        this.o.log.warn(
          { err: reason, token, rows: rows.count },
          'ClickHouse refused the batch; isolating the rows it refuses',
        );
        keptRows();
      },
    });
    if (result === 'stopped') return; // left pending, recorded: the next start goes on with the same tokens
    const refused = result.map(({ row, reason }) => ({ ...(keptRows()[row] as KeptRow), reason }));
    // Kept before the batch is acknowledged, as an unreadable entry's.
    if (refused.length > 0) await this.deadLetterRows(token, refused, 'clickhouse');
    await this.o.redis
      .multi()
      .xack(EVENT_STREAM, INGEST_GROUP, ...ids)
      .hdel(TOKEN_OF_ENTRY, ...ids)
      .del(batchKey(token), isolationKey(token))
      .exec();
    this.inserted += rows.count - refused.length;
    this.batches++;
  }

  /**
   * Inserts rows with a token, retrying what may pass later; `refused` (with why) when ClickHouse refuses the
   * rows themselves, `stopped` when the ingester stops while it still fails.
   */
  private async insertRetrying(rows: EventBatchRows, token: string): Promise<RangeOutcome> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.inserter.insert(rows, token);
        return 'inserted';
      } catch (err) {
        const failure = classifyInsertError(err);
        // Not a failure to retry: the caller isolates the refused rows (each step of it refused again, logged once at its start).
        if (failure.kind === 'refused') return { refused: failure.reason };
        this.failures++;
        this.o.log.warn(
          { err: (err as Error).message, token, rows: rows.count, attempt },
          'event insert failed; will retry the same batch',
        );
        if (!this.running && attempt >= 2) return 'stopped';
        await sleep(Math.min(5_000, 200 * 2 ** Math.min(attempt, 5)));
      }
    }
  }

  /** The batch's rows as its build kept them, in order, each with its entry (decoded again here, on the main thread). */
  private keptRows({ built, rows: { count } }: Prepared): KeptRow[] {
    const { events, starts } = decodeEntries(built.map((e) => e.packed as Buffer));
    const rows: KeptRow[] = [];
    let entry = 0;
    events.forEach((event, at) => {
      while (entry + 1 < starts.length && (starts[entry + 1] as number) <= at) entry++;
      if (rowProblem(event) === undefined) rows.push({ entryId: (built[entry] as ReadEntry).id, event });
    });
    if (rows.length !== count) throw new Error(`isolation found ${rows.length} rows in a batch of ${count}`);
    return rows;
  }

  private async commit(entries: Entry[], knownToken?: string): Promise<void> {
    const batch = await this.record(
      entries.map(([id, fields]) => readEntry(id, fields)),
      knownToken,
    );
    await this.insertAndAck({ ...batch, ...(await this.rowsOf(batch)) }, knownToken !== undefined);
  }

  /**
   * Entries delivered but never acknowledged (a crash, a failed insert at
   * shutdown, a dead ingester): re-insert each recorded batch whole with its
   * token; entries that never made it into a batch form new ones.
   */
  private async recover(): Promise<void> {
    await this.o.redis.xautoclaim(
      EVENT_STREAM,
      INGEST_GROUP,
      this.consumer,
      this.claimIdleMs,
      '0-0',
      'COUNT',
      1_000,
      'JUSTID',
    );
    const pending = (await this.o.redis.xpending(EVENT_STREAM, INGEST_GROUP, '-', '+', 1_000, this.consumer)) as [
      string,
      string,
      number,
      number,
    ][];
    if (pending.length === 0) return;
    const ids = pending.map((p) => p[0]);
    const tokens = await this.o.redis.hmget(TOKEN_OF_ENTRY, ...ids);
    const byToken = new Map<string, string[]>();
    const loose: string[] = [];
    ids.forEach((id, i) => {
      const t = tokens[i];
      if (t) byToken.set(t, [...(byToken.get(t) ?? []), id]);
      else loose.push(id);
    });
    for (const token of byToken.keys()) {
      const batchIds = await this.o.redis.lrange(batchKey(token), 0, -1);
      // Claim the rest of the batch too, wherever it is pending, so it is re-inserted whole.
      await this.o.redis.xclaim(EVENT_STREAM, INGEST_GROUP, this.consumer, 0, ...batchIds, 'JUSTID');
      await this.commit(await this.fetch(batchIds), token);
    }
    if (loose.length) await this.commit(await this.fetch(loose));
  }

  private async fetch(ids: string[]): Promise<Entry[]> {
    const out: Entry[] = [];
    for (const id of ids) {
      const [entry] = await this.o.redis.xrangeBuffer(EVENT_STREAM, id, id);
      // An entry trimmed away (stream MAXLEN) cannot be re-read; keep the batch shape with no rows for it.
      out.push(entry ? [String(entry[0]), entry[1]] : [id, []]);
    }
    return out;
  }
}

/**
 * A stream entry's packed events (field `b`) and their count (field `n`, which every writer sets:
 * `xaddArgs`); an entry without `n` is counted by decoding it.
 */
function readEntry(id: string, fields: readonly Buffer[]): ReadEntry {
  let packed: Buffer | undefined;
  let count = -1;
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const name = String(fields[i]);
    if (name === 'b') packed = fields[i + 1];
    else if (name === 'n') count = Number(String(fields[i + 1]));
  }
  if (!(Number.isSafeInteger(count) && count >= 0)) count = packed ? countOf(packed) : 0;
  return { id, packed, count };
}

/** Events in a packed entry; one that does not decode counts none here (its build moves it to the dead letters). */
function countOf(packed: Buffer): number {
  try {
    const events = unpack<unknown>(packed);
    return Array.isArray(events) ? events.length : 0;
  } catch {
    return 0;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
