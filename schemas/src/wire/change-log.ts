import { CONFIG_KINDS } from '../changes.ts';
import type { ChangeEntry, ConfigKind } from '../changes.ts';
import { unpack } from './msgpack.ts';
import { compareStreamIds } from './stream-ids.ts';
import { CFG_LOG, cfgHash } from './redis-keys.ts';

// The config contract's reader side, the one reader of it (engines mirror the
// config with it; tests read the log with it). The writer is the admin's
// ConfigStore: msgpack values in `{cfg}:<kind>` hashes, one entry per change in
// the `{cfg}:log` stream (fields k, id, op, rev, v).

export type ConfigEntities = Record<ConfigKind, Map<number, unknown>>;

/**
 * Strings config values repeat (statuses, formats, countries, time zones, landing URLs, texts and timestamps
 * written together), one copy each: decoded, each value had its own, and at 100 000 campaigns / 300 000
 * creatives copies of strings already held were about 100 MiB of the engine's 500 MiB live heap
 * (bench/results/ab-history.md, "Memory at 100 000 campaigns"). Emptied when full: the bound, not the
 * config's size, is what it can hold beyond the config; a value decoded after that shares with later ones.
 */
const interned = new Map<string, string>();
const INTERNED_MAX = 200_000;
/** Longer strings (descriptions, markup) are rarely repeated: not kept in the table. */
const INTERN_LENGTH_MAX = 256;

function intern(s: string): string {
  if (s.length > INTERN_LENGTH_MAX) return s;
  const known = interned.get(s);
  if (known !== undefined) return known;
  if (interned.size >= INTERNED_MAX) interned.clear();
  interned.set(s, s);
  return s;
}

/**
 * `value` with its strings interned: plain objects in place (assigning existing properties keeps their shapes;
 * building new objects key by key left campaigns as dictionaries, larger than the strings saved), arrays as
 * exact-size copies (a cloned array of 3 countries had room for 16, ~100 bytes spare each, 370 000 of them).
 */
function compact(value: unknown): unknown {
  if (typeof value === 'string') return intern(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(compact);
  if (Object.getPrototypeOf(value) !== Object.prototype) return value;
  const v = value as Record<string, unknown>;
  // msgpackr renames a `__proto__` key; were one here, assigning it would set the prototype.
  for (const key of Object.keys(v)) if (key !== '__proto__') v[key] = compact(v[key]);
  return v;
}

/**
 * A config value as a mirror keeps it for as long as the value lives: copied once, its strings interned.
 * msgpackr's native string extraction hands out slices of strings it decoded together, and each slice keeps
 * its whole parent alive: decoded as is, 400 000 campaigns and creatives held about 250 MiB more than the
 * same values copied once (bench/results/ab-history.md, step 4). The copy's strings are its own.
 */
export const mirrorValue = (decoded: unknown): unknown => compact(structuredClone(decoded));

const mirrored = (blob: Buffer): unknown => mirrorValue(unpack(blob));

export interface Snapshot {
  /** Last change-log id covered by the snapshot; follow the log after it. */
  seq: string;
  entities: ConfigEntities;
}

/** One MULTI reply entry: `[error, result]` as ioredis returns it. */
type MultiReply = [Error | null, unknown];

/**
 * The replies of one MULTI that ran HGETALL (buffers) on each config hash in
 * `CONFIG_KINDS` order, then `XREVRANGE {cfg}:log + - COUNT 1`. `pause` is awaited every 100 values: a
 * running engine lets requests in while it decodes (400 000 values take a second and more).
 */
export async function decodeSnapshot(replies: readonly MultiReply[], pause?: () => Promise<void>): Promise<Snapshot> {
  const entities = {} as ConfigEntities;
  let decoded = 0;
  for (const [i, kind] of CONFIG_KINDS.entries()) {
    const [err, raw] = replies[i] ?? [null, {}];
    if (err) throw err;
    const map = new Map<number, unknown>();
    for (const [id, blob] of Object.entries((raw ?? {}) as Record<string, Buffer>)) {
      if (pause && ++decoded % 100 === 0) await pause();
      map.set(Number(id), mirrored(blob));
    }
    entities[kind] = map;
  }
  const [err, last] = replies[CONFIG_KINDS.length] ?? [null, []];
  if (err) throw err;
  return { seq: (last as [string, unknown][])[0]?.[0] ?? '0-0', entities };
}

/** One entry of an XRANGE (buffers) reply of the change log. */
type RawChange = readonly [Buffer | string, readonly Buffer[]];

function decodeChange([id, fields]: RawChange): ChangeEntry {
  const f = new Map<string, Buffer>();
  for (let i = 0; i + 1 < fields.length; i += 2) f.set(String(fields[i]), fields[i + 1] as Buffer);
  const v = f.get('v');
  return {
    seq: String(id),
    kind: String(f.get('k')) as ConfigKind,
    id: Number(String(f.get('id'))),
    op: String(f.get('op')) === 'del' ? 'del' : 'put',
    value: v ? mirrored(v) : undefined,
  };
}

/** XRANGE (buffers) reply of the change log, oldest first. */
export function decodeChanges(raw: readonly RawChange[]): ChangeEntry[] {
  return raw.map(decodeChange);
}

/** Compares change-log positions (stream ids, `<ms>-<seq>`). */
export const compareSeq = compareStreamIds;

/**
 * The few Redis calls the log's readers make, as a structural type: an ioredis
 * client (standalone or cluster) fits it, and this module needs no client.
 */
export interface ChangeLogSource {
  multi(): ChangeLogMulti;
  hscanBuffer(key: string, cursor: string, count: 'COUNT', n: number): Promise<[Buffer, Buffer[]]>;
  xrange(key: string, start: string, end: string, count: 'COUNT', n: number): Promise<[string, string[]][]>;
  xrevrange(key: string, end: string, start: string, count: 'COUNT', n: number): Promise<[string, string[]][]>;
  xrangeBuffer(key: string, start: string, end: string, count: 'COUNT', n: number): Promise<[Buffer, Buffer[]][]>;
}
interface ChangeLogMulti {
  hgetallBuffer(key: string): ChangeLogMulti;
  xrevrange(key: string, end: string, start: string, count: 'COUNT', n: number): ChangeLogMulti;
  exec(): Promise<[Error | null, unknown][] | null>;
}

/**
 * Hash fields asked for per HSCAN call (a hint: Redis may answer more, or all of a small hash). About 0.4 MB of
 * reply a page at 100 000 campaigns / 300 000 creatives, 400 round trips in all.
 */
export const SNAPSHOT_PAGE = 1_000;
/** Log entries read (and decoded) per round trip while a paged snapshot catches up with its own reading. */
const SNAPSHOT_LOG_COUNT = 1_000;
/** Paged reads whose log was trimmed past their start before falling back to the one-transaction read. */
const PAGED_TRIES = 3;

/**
 * All configuration and the log id it is consistent with, read in pages; `pause`: see decodeSnapshot.
 *
 * Read in one MULTI, every reply (about 175 MiB at 100 000 campaigns) lived until the whole snapshot was
 * decoded, was promoted and left that much in the process's malloc heap and V8's pages for good
 * (bench/results/ab-history.md, "Step: RSS at 100 000 campaigns"). Paged, each page's buffers die young. The
 * pages alone are not consistent (a value can change between two of them), so the log's position is taken
 * before the first page and every change after it is replayed onto what the pages gave: the admin writes a
 * value and its log entry in one script, and puts and deletes carry whole values, so the replay converges to
 * the configuration as of the last entry read, whatever the pages saw (HSCAN returns every field present
 * throughout, some twice; either way the replay has the last word). Should the log be trimmed past that
 * position during the read, the changes in between are lost: read again, and after PAGED_TRIES fall back to
 * the single transaction.
 */
export async function readSnapshot(redis: ChangeLogSource, pause?: () => Promise<void>): Promise<Snapshot> {
  for (let attempt = 0; attempt < PAGED_TRIES; attempt++) {
    const snap = await readPaged(redis, pause);
    if (snap) return snap;
  }
  return readSnapshotAtomic(redis, pause);
}

async function readPaged(redis: ChangeLogSource, pause?: () => Promise<void>): Promise<Snapshot | undefined> {
  const from = (await redis.xrevrange(CFG_LOG, '+', '-', 'COUNT', 1))[0]?.[0] ?? '0-0';
  const entities = {} as ConfigEntities;
  let decoded = 0;
  for (const kind of CONFIG_KINDS) {
    const map = new Map<number, unknown>();
    let cursor = '0';
    do {
      const [next, fields] = await redis.hscanBuffer(cfgHash(kind), cursor, 'COUNT', SNAPSHOT_PAGE);
      cursor = String(next);
      for (let i = 0; i + 1 < fields.length; i += 2) {
        if (pause && ++decoded % 100 === 0) await pause();
        map.set(Number(String(fields[i])), mirrored(fields[i + 1] as Buffer));
      }
    } while (cursor !== '0');
    entities[kind] = map;
  }
  let seq = from;
  for (;;) {
    const batch = await readChanges(redis, seq, SNAPSHOT_LOG_COUNT);
    if (batch.length === 0) break;
    for (const c of batch) {
      // A kind this reader does not know (a newer admin) is not part of its snapshot, as the MULTI read had it.
      const map = entities[c.kind] as Map<number, unknown> | undefined;
      if (c.op === 'del') map?.delete(c.id);
      else map?.set(c.id, c.value);
    }
    seq = (batch.at(-1) as ChangeEntry).seq;
  }
  // Trimming removes the oldest entries first: while the first is still at or before `from`, nothing after
  // `from` was lost. An empty log at the start (a fresh Redis) has nothing to lose but what the read raced with.
  const first = (await redis.xrange(CFG_LOG, '-', '+', 'COUNT', 1))[0]?.[0];
  if (from !== '0-0' && (first === undefined || compareSeq(first, from) > 0)) return undefined;
  return { seq, entities };
}

/** All configuration and the log id it is consistent with, in one MULTI (every reply held until all are decoded). */
export async function readSnapshotAtomic(redis: ChangeLogSource, pause?: () => Promise<void>): Promise<Snapshot> {
  const tx = redis.multi();
  for (const kind of CONFIG_KINDS) tx.hgetallBuffer(cfgHash(kind));
  tx.xrevrange(CFG_LOG, '+', '-', 'COUNT', 1);
  return decodeSnapshot((await tx.exec()) ?? [], pause);
}

/**
 * Entries after `seq`, oldest first. `pause` is awaited before each entry is decoded: a running engine lets
 * requests in while it decodes (100 campaigns took 1-3 ms at 100 000 campaigns, in the same turn as the
 * changes applied before it).
 */
export async function readChanges(
  redis: ChangeLogSource,
  seq: string,
  count = 1_000,
  pause?: () => Promise<void>,
): Promise<ChangeEntry[]> {
  const raw = await redis.xrangeBuffer(CFG_LOG, `(${seq}`, '+', 'COUNT', count);
  if (!pause) return decodeChanges(raw);
  const entries: ChangeEntry[] = [];
  for (const entry of raw) {
    await pause();
    entries.push(decodeChange(entry));
  }
  return entries;
}

/** First and last ids in the log, to notice a trimmed log or a Redis that lost data. */
export async function logBounds(redis: ChangeLogSource): Promise<{ first: string; last: string } | undefined> {
  const [first, last] = await Promise.all([
    redis.xrange(CFG_LOG, '-', '+', 'COUNT', 1),
    redis.xrevrange(CFG_LOG, '+', '-', 'COUNT', 1),
  ]);
  const f = first[0]?.[0];
  const l = last[0]?.[0];
  return f && l ? { first: f, last: l } : undefined;
}
