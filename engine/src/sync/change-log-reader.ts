import { CONFIG_KINDS } from '@adnet/schemas/changes';
import type { ChangeEntry, ConfigKind } from '@adnet/schemas/changes';
import { CFG_LOG, cfgHash } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import { Packr } from 'msgpackr';
import type { ConfigState } from '../index/engine-index.ts';

// The engine's side of the config contract (writer: admin/src/storage/config-store.ts):
// plain msgpack values in `{cfg}:<kind>` hashes, changes in the `{cfg}:log` stream.
const packr = new Packr({ useRecords: false });

export interface Snapshot {
  seq: string;
  state: ConfigState;
}

/** All configuration and the log id it is consistent with, in one MULTI. */
export async function readSnapshot(redis: Redis): Promise<Snapshot> {
  const tx = redis.multi();
  for (const kind of CONFIG_KINDS) tx.hgetallBuffer(cfgHash(kind));
  tx.xrevrange(CFG_LOG, '+', '-', 'COUNT', 1);
  const results = (await tx.exec()) ?? [];
  const state = {} as ConfigState;
  CONFIG_KINDS.forEach((kind, i) => {
    const [err, raw] = results[i] ?? [];
    if (err) throw err;
    const map = new Map<number, unknown>();
    for (const [id, blob] of Object.entries((raw ?? {}) as Record<string, Buffer>)) map.set(Number(id), packr.unpack(blob));
    state[kind] = map;
  });
  const last = results[CONFIG_KINDS.length]?.[1] as [string, string[]][] | undefined;
  return { seq: last?.[0]?.[0] ?? '0-0', state };
}

/** Entries after `seq`, oldest first. */
export async function readChanges(redis: Redis, seq: string, count: number): Promise<ChangeEntry[]> {
  const raw = await redis.xrangeBuffer(CFG_LOG, `(${seq}`, '+', 'COUNT', count);
  return raw.map(([id, fields]) => {
    const f = new Map<string, Buffer>();
    for (let i = 0; i + 1 < fields.length; i += 2) f.set(String(fields[i]), fields[i + 1] as Buffer);
    const v = f.get('v');
    return {
      seq: String(id),
      kind: String(f.get('k')) as ConfigKind,
      id: Number(String(f.get('id'))),
      op: String(f.get('op')) === 'del' ? 'del' : 'put',
      value: v ? (packr.unpack(v) as unknown) : undefined,
    };
  });
}

/** First and last ids in the log, to notice a trimmed log or a Redis that lost data. */
export async function logBounds(redis: Redis): Promise<{ first: string; last: string } | undefined> {
  const [first, last] = await Promise.all([redis.xrange(CFG_LOG, '-', '+', 'COUNT', 1), redis.xrevrange(CFG_LOG, '+', '-', 'COUNT', 1)]);
  const f = first[0]?.[0];
  const l = last[0]?.[0];
  return f && l ? { first: f, last: l } : undefined;
}

/** Compares stream ids (`<ms>-<seq>`). */
export function compareSeq(a: string, b: string): number {
  const [am = 0, as = 0] = a.split('-').map(Number);
  const [bm = 0, bs = 0] = b.split('-').map(Number);
  return am - bm || as - bs;
}
