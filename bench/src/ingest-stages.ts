// Times the ingester's serial stages per event, each on its own, against a throwaway Redis: the XREADGROUP
// round trip (wall, this process's CPU = ioredis receiving and parsing the reply, Redis's CPU), the msgpack
// decode, the RowBinary body, and the batch's record in Redis, as the ingester read them on the main thread
// before the builder's worker (`callBuffer` replies, the entries decoded one by one). Median of the rounds.
//   npx tsx bench/src/ingest-stages.ts        (knobs: STAGES_EVENTS, STAGES_ROUNDS, STAGES_READ_ENTRIES)
import { createHash } from 'node:crypto';
import { EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { decodeEntry, readGroupEntries, xaddArgs } from '@adnet/schemas/wire/event-stream';
import type { ReadGroupReply } from '@adnet/schemas/wire/event-stream';
import type { EngineEvent } from '@adnet/schemas/events';
import type { Redis } from 'ioredis';
import { eventsRowBinary } from '@adnet/admin/event-rows';
import { benchEvent } from './pipeline-generator.ts';
import { startBenchRedis } from './local-redis.ts';
import { cpuMs } from './proc-stats.ts';

const EVENTS = Number(process.env.STAGES_EVENTS ?? 200_000);
const ROUNDS = Number(process.env.STAGES_ROUNDS ?? 3);
const READ_ENTRIES = Number(process.env.STAGES_READ_ENTRIES ?? 20);
const PER_ENTRY = 500;
const BATCH_ROWS = 50_000;

interface Stage {
  wall: number;
  cpu: number;
}
type Figures = Record<string, Stage> & { redisCpu: Stage };

const cpuNow = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

async function fill(redis: Redis): Promise<void> {
  const now = Date.now();
  const entries = Array.from({ length: 20 }, (_, k) =>
    xaddArgs(
      Array.from({ length: PER_ENTRY }, (_, i) => benchEvent(`s${k}-${i}`, k * PER_ENTRY + i, now)),
      100_000_000,
    ),
  );
  await redis.del(EVENT_STREAM);
  await redis.xgroup('CREATE', EVENT_STREAM, 'ingest', '0', 'MKSTREAM');
  for (let sent = 0; sent < EVENTS / PER_ENTRY;) {
    const p = redis.pipeline();
    for (let n = 0; n < 100 && sent < EVENTS / PER_ENTRY; n++, sent++) p.xadd(...entries[sent % entries.length]!);
    await p.exec();
  }
}

async function readOnce(redis: Redis): Promise<[string, Buffer[]][]> {
  const reply = (await redis.callBuffer('XREADGROUP', [
    'GROUP',
    'ingest',
    'c',
    'COUNT',
    READ_ENTRIES,
    'STREAMS',
    EVENT_STREAM,
    '>',
  ])) as ReadGroupReply;
  return readGroupEntries(reply);
}

async function round(redis: Redis, redisPid: number): Promise<Figures> {
  await fill(redis);
  const f: Figures = {
    read: { wall: 0, cpu: 0 },
    decode: { wall: 0, cpu: 0 },
    rowBinary: { wall: 0, cpu: 0 },
    record: { wall: 0, cpu: 0 },
    redisCpu: { wall: 0, cpu: 0 },
  };
  const time = async <T>(stage: string, fn: () => T | Promise<T>): Promise<T> => {
    const w = performance.now();
    const c = cpuNow();
    const out = await fn();
    f[stage]!.wall += performance.now() - w;
    f[stage]!.cpu += cpuNow() - c;
    return out;
  };
  let redisCpu = 0;
  for (;;) {
    const events: EngineEvent[] = [];
    const ids: string[] = [];
    while (events.length < BATCH_ROWS) {
      const r0 = cpuMs(redisPid);
      const got = await time('read', () => readOnce(redis));
      redisCpu += cpuMs(redisPid) - r0;
      if (got.length === 0) break;
      await time('decode', () => {
        for (const [id, fields] of got) {
          ids.push(id);
          for (const e of decodeEntry(fields)) events.push(e);
        }
      });
    }
    if (events.length === 0) break;
    await time('rowBinary', () => eventsRowBinary(events));
    await time('record', async () => {
      const token = createHash('sha256').update(ids.join(',')).digest('hex').slice(0, 40);
      const entryTokens: string[] = [];
      for (const id of ids) entryTokens.push(id, token);
      await redis
        .multi()
        .rpush(`b:${token}`, ...ids)
        .expire(`b:${token}`, 600)
        .hset('et', ...entryTokens)
        .exec();
    });
  }
  f.redisCpu = { wall: 0, cpu: redisCpu };
  await redis.del('et');
  return f;
}

const r = await startBenchRedis('ingest-stages-');
const reader = r.client;
const rows: Figures[] = [];
for (let i = 0; i < ROUNDS; i++) rows.push(await round(reader, r.pid));
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const us = (ms: number) => ((ms * 1000) / EVENTS).toFixed(2);
console.log(
  `${EVENTS} events, ${READ_ENTRIES} entries of ${PER_ENTRY} a read, batches of ${BATCH_ROWS}; us per event, median of ${ROUNDS}`,
);
const stages = Object.keys(rows[0]!).filter((s) => s !== 'redisCpu');
console.log(
  stages
    .map((s) => `${s} wall ${us(median(rows.map((x) => x[s]!.wall)))} cpu ${us(median(rows.map((x) => x[s]!.cpu)))}`)
    .join(' | ') + ` | redis cpu (read) ${us(median(rows.map((x) => x.redisCpu.cpu)))}`,
);
await r.stop();
