import type { ClickHouseClient } from '@clickhouse/client';
import { EVENT_DEAD_LETTERS, EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { createHash, randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { Redis } from 'ioredis';
import type { Logger } from '../log.ts';
import { unpack } from '@adnet/schemas/wire/msgpack';
import { BatchBuilder } from './batch-builder.ts';
import { EventInserter } from './event-insert.ts';
import type { EventBatchRows } from './event-insert.ts';

export { eventInsertSettings } from './event-insert.ts';

export const INGEST_GROUP = 'ingest';
/**
 * For the ingester's own connection: its reads block at most 500 ms, so an answer later than this means
 * the connection stopped answering (a node lost mid-failover); the round fails and is retried.
 */
export const INGEST_COMMAND_TIMEOUT_MS = 10_000;
// In the stream's slot ({events} hashes like `events`): one MULTI acknowledges entries and drops their records.
const TOKEN_OF_ENTRY = '{events}:ingest:entry-token';
const batchKey = (token: string) => `{events}:ingest:batch:${token}`;
const RECORD_TTL_S = 7 * 86_400;
/**
 * Events asked for per XREADGROUP (in whole entries): replies of about 1 MB. Replies of a whole batch
 * (50 000 events, 6 MB and more) cost the main thread about twice the wall time per event to receive
 * and parse, and a first guess of 100 events an entry made the first batch five times INGEST_BATCH_ROWS
 * (bench/results/performance.md, goal 5).
 */
const READ_EVENTS = 10_000;
/** Dead letters kept at most (about): each is one engine batch, read by people, not by the product. */
const DEAD_LETTERS_MAX = 100_000;

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
  private loop: Promise<void> | undefined;
  private readonly batchRows: number;
  private readonly flushMs: number;
  private readonly claimIdleMs: number;
  /** Events per stream entry lately, to size XREADGROUP's COUNT; first guess: a full engine entry (its batcher's 500). */
  private eventsPerEntry = 500;
  private readonly inserter: EventInserter;
  private readonly builder: BatchBuilder;
  inserted = 0;
  batches = 0;
  failures = 0;
  /** Entries moved to the dead letters (EVENT_DEAD_LETTERS). */
  deadLetters = 0;

  constructor(private readonly o: IngesterOptions) {
    this.consumer = o.consumer ?? `${hostname()}-${process.pid}-${randomBytes(3).toString('hex')}`;
    this.batchRows = o.batchRows ?? 50_000;
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
    this.running = false;
    await this.loop;
    await this.builder.close();
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
        inFlight = rows.then((built) => this.insertAndAck({ ...batch, rows: built }));
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
      this.o.log.warn({ err: (err as Error).message, consumer: this.consumer }, 'last insert failed; its batch stays pending');
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
      const count = Math.min(1_000, Math.max(1, Math.ceil(Math.min(this.batchRows - rows, READ_EVENTS) / this.eventsPerEntry)));
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
    ])) as [Buffer, [Buffer, Buffer[] | null][]][] | null;
    const out: Entry[] = [];
    for (const [, items] of reply ?? []) for (const [id, fields] of items) if (fields) out.push([String(id), fields]);
    return out;
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
   * rest of the batch goes on. The sorting is the same at every retry, so a batch re-inserted after a
   * crash has the same rows under the same token and is still counted once.
   */
  private async rowsOf(batch: Recorded): Promise<EventBatchRows> {
    const packed = batch.packed.map((e) => e.packed as Buffer);
    try {
      return await this.builder.build(packed);
    } catch (err) {
      const problems = this.builder.problems(packed);
      // Every entry builds alone: the build itself failed (its worker died), which a retry mends.
      if (problems.every((p) => p === undefined)) throw err;
      const good: Buffer[] = [];
      const dead = this.o.redis.pipeline();
      batch.packed.forEach((e, i) => {
        const problem = problems[i];
        if (problem === undefined) good.push(e.packed as Buffer);
        else dead.xadd(EVENT_DEAD_LETTERS, 'MAXLEN', '~', DEAD_LETTERS_MAX, '*', 'id', e.id, 'error', problem.slice(0, 500), 'b', e.packed as Buffer);
      });
      // Kept before the batch is acknowledged: a crash in between writes them again, never loses them.
      for (const [failed] of (await dead.exec()) ?? []) if (failed) throw failed;
      const n = problems.length - good.length;
      this.deadLetters += n;
      this.o.log.error(
        { entries: n, token: batch.token, first: problems.find((p) => p !== undefined) },
        'stream entries that are not events moved to the dead letters',
      );
      return this.builder.build(good);
    }
  }

  /** Inserts a prepared batch with its token (retrying while running), then acknowledges it. */
  private async insertAndAck({ ids, token, rows }: Prepared): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        await this.inserter.insert(rows, token);
        break;
      } catch (err) {
        this.failures++;
        this.o.log.warn({ err: (err as Error).message, token, rows: rows.count, attempt }, 'event insert failed; will retry the same batch');
        if (!this.running && attempt >= 2) return; // left pending, recorded: the next start re-inserts it with the same token
        await sleep(Math.min(5_000, 200 * 2 ** Math.min(attempt, 5)));
      }
    }
    await this.o.redis
      .multi()
      .xack(EVENT_STREAM, INGEST_GROUP, ...ids)
      .hdel(TOKEN_OF_ENTRY, ...ids)
      .del(batchKey(token))
      .exec();
    this.inserted += rows.count;
    this.batches++;
  }

  private async commit(entries: Entry[], knownToken?: string): Promise<void> {
    const batch = await this.record(
      entries.map(([id, fields]) => readEntry(id, fields)),
      knownToken,
    );
    await this.insertAndAck({ ...batch, rows: await this.rowsOf(batch) });
  }

  /**
   * Entries delivered but never acknowledged (a crash, a failed insert at
   * shutdown, a dead ingester): re-insert each recorded batch whole with its
   * token; entries that never made it into a batch form new ones.
   */
  private async recover(): Promise<void> {
    await this.o.redis.xautoclaim(EVENT_STREAM, INGEST_GROUP, this.consumer, this.claimIdleMs, '0-0', 'COUNT', 1_000, 'JUSTID');
    const pending = (await this.o.redis.xpending(EVENT_STREAM, INGEST_GROUP, '-', '+', 1_000, this.consumer)) as [string, string, number, number][];
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

export interface EventBacklog {
  /** Entries in the stream (each a batch of events). */
  length: number;
  /** Entries not yet delivered to the ingest group. */
  lag: number;
  /** Entries delivered but not yet acknowledged (in ClickHouse or being retried). */
  pending: number;
}

/** What waits for ClickHouse, read from the stream and its consumer group. */
export async function eventBacklog(redis: Redis): Promise<EventBacklog> {
  const [length, groups, newest] = await Promise.all([
    redis.xlen(EVENT_STREAM),
    (redis.xinfo('GROUPS', EVENT_STREAM) as Promise<unknown[][]>).catch(() => []),
    redis.xrevrange(EVENT_STREAM, '+', '-', 'COUNT', 1),
  ]);
  const g = groups.map((row) => Object.fromEntries(chunk(row))).find((x) => x.name === INGEST_GROUP);
  const pending = Number(g?.pending ?? 0);
  const delivered = typeof g?.['last-delivered-id'] === 'string' ? g['last-delivered-id'] : '0-0';
  const last = newest[0]?.[0];
  // Redis's own `lag` can be missing, and after a replica is promoted it was seen stuck above zero with
  // every entry delivered: the last delivered id against the newest entry is the reliable test.
  if (!last || compareStreamIds(delivered, last) >= 0) return { length, lag: 0, pending };
  const reported = g?.lag;
  if (typeof reported === 'number') return { length, lag: reported, pending };
  const undelivered = await redis.xrange(EVENT_STREAM, `(${delivered}`, '+', 'COUNT', 10_000);
  return { length, lag: undelivered.length, pending };
}

/** Orders stream ids (`<ms>-<seq>`). */
function compareStreamIds(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}

function chunk(row: unknown[]): [string, unknown][] {
  const out: [string, unknown][] = [];
  for (let i = 0; i + 1 < row.length; i += 2) out.push([String(row[i]), row[i + 1]]);
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
