import type { ClickHouseClient } from '@clickhouse/client';
import type { EngineEvent } from '@adnet/schemas/events';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_DEAD_LETTERS, EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { pack } from '@adnet/schemas/wire/msgpack';
import { INGEST_GROUP, Ingester } from '../src/ingest/ingester.ts';
import { createLogger } from '../src/log.ts';
import { Redis } from 'ioredis';
import { useTestApp } from '../../tests/e2e/support/admin.ts';

const fx = useTestApp({}, { clickhouse: true });
const log = createLogger(process.env.TEST_LOG ?? 'silent');
let seq = 0;

/** Writes events to the stream exactly as engines do: msgpack batches in field `b`. */
async function emit(count: number, perEntry: number, campaign: number): Promise<void> {
  const redis = fx.app.svc.redis;
  for (let i = 0; i < count; i += perEntry) {
    const batch: EngineEvent[] = Array.from({ length: Math.min(perEntry, count - i) }, () => ({
      id: `ev-${process.pid}-${++seq}`,
      type: 'win',
      bid_id: 'b',
      partner_id: 1,
      price_micro_cents: 100_000,
      ts: Date.parse('2026-11-20T10:30:00Z'),
      engine: 'e1',
      campaign_id: campaign,
      advertiser_id: 9,
      creative_id: 1,
      charge_nano: 1_000_000,
      country: 'us',
      device: 'desktop',
    }));
    await redis.xadd(...xaddArgs(batch, 10_000_000));
  }
}

async function counts(campaign: number): Promise<{ raw: number; hourly: number; spent: number }> {
  const ch = fx.app.svc.clickhouse as ClickHouseClient;
  const q = async (query: string) =>
    (await (await ch.query({ query, query_params: { c: campaign }, format: 'JSONEachRow' })).json<Record<string, number | string>>())[0] ?? {};
  const raw = await q('SELECT count() AS n FROM adnet.events WHERE campaign_id = {c:UInt32}');
  const hourly = await q('SELECT sum(impressions) AS n, sum(spent_nano) AS s FROM adnet.stats_hourly WHERE campaign_id = {c:UInt32}');
  return { raw: Number(raw.n), hourly: Number(hourly.n), spent: Number(hourly.s) };
}

/** A client whose inserts fail as scripted; `after` means the insert happened and only the answer was lost. */
function flaky(real: ClickHouseClient, plan: { failBefore?: number; failAfter?: number; forever?: 'before' | 'after' }): ClickHouseClient {
  let before = plan.failBefore ?? 0;
  let after = plan.failAfter ?? 0;
  return new Proxy(real, {
    get(target, prop, receiver) {
      // The ingester inserts with `insert` (rows in the body) or `command` (INSERT ... SELECT FROM file()).
      if (prop !== 'insert' && prop !== 'command') return Reflect.get(target, prop, receiver) as unknown;
      return async (args: never) => {
        if (plan.forever === 'before' || before-- > 0) throw new Error('clickhouse unreachable (test)');
        const result: unknown = await (prop === 'insert' ? target.insert(args) : target.command(args));
        if (plan.forever === 'after' || after-- > 0) throw new Error('answer lost (test)');
        return result;
      };
    },
  });
}

async function drain(ingester: Ingester): Promise<void> {
  for (let i = 0; i < 300; i++) {
    const b = await ingester.backlog();
    if (b.lag === 0 && b.pending === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('ingester did not drain');
}

const stagingDir = mkdtempSync(join(tmpdir(), 'ingest-staging-'));
afterAll(() => rmSync(stagingDir, { recursive: true, force: true }));

// Both ways a batch reaches ClickHouse, on the same chDB: each its own campaigns (`base`).
describe.each([
  { way: 'rows in the insert body (a ClickHouse server)', base: 0, staging: {} },
  { way: 'RowBinary files read by embedded chDB', base: 100, staging: { stagingDir } },
])('ingester, $way', ({ base, staging }) => {
  const make = (clickhouse: ClickHouseClient, extra: Partial<ConstructorParameters<typeof Ingester>[0]> = {}) =>
    new Ingester({
      redis: new Redis(fx.redis.url, { enableAutoPipelining: false }),
      clickhouse,
      database: 'adnet',
      log,
      batchRows: 500,
      flushMs: 100,
      ...staging,
      ...extra,
    });

  it('inserts every event exactly once, in batches', async () => {
    const ing = make(fx.app.svc.clickhouse as ClickHouseClient);
    await ing.start();
    await emit(1_234, 100, base + 101);
    await drain(ing);
    await ing.stop();
    expect(await counts(base + 101)).toEqual({ raw: 1_234, hourly: 1_234, spent: 1_234_000_000 });
    // 1 234 rows at a 500-row target: more than one insert, none per event.
    expect(ing.batches).toBeGreaterThanOrEqual(2);
    expect(ing.batches).toBeLessThanOrEqual(4);
  });

  it('counts conversions in the hourly statistics', async () => {
    const ing = make(fx.app.svc.clickhouse as ClickHouseClient);
    await ing.start();
    const batch: EngineEvent[] = Array.from({ length: 3 }, (_, i) => ({
      id: `conv-${process.pid}-${base}-${i}`,
      type: 'conversion',
      ts: Date.parse('2026-11-20T11:00:00Z'),
      engine: 'admin',
      campaign_id: base + 107,
      advertiser_id: 9,
      creative_id: 1,
    }));
    await fx.app.svc.redis.xadd(...xaddArgs(batch, 10_000_000));
    await drain(ing);
    await ing.stop();
    const ch = fx.app.svc.clickhouse as ClickHouseClient;
    const [row] = await (
      await ch.query({ query: `SELECT sum(conversions) AS c FROM adnet.stats_hourly WHERE campaign_id = ${base + 107}`, format: 'JSONEachRow' })
    ).json<{ c: number | string }>();
    expect(Number(row?.c)).toBe(3);
  });

  it('keeps events waiting while ClickHouse is down and loses none when it is back', async () => {
    const ing = make(flaky(fx.app.svc.clickhouse as ClickHouseClient, { failBefore: 4 }));
    await ing.start();
    await emit(700, 50, base + 102);
    await drain(ing);
    await ing.stop();
    expect(ing.failures).toBeGreaterThanOrEqual(4);
    expect(await counts(base + 102)).toEqual({ raw: 700, hourly: 700, spent: 700_000_000 });
  });

  it('does not count twice when an insert landed but its answer was lost', async () => {
    const ing = make(flaky(fx.app.svc.clickhouse as ClickHouseClient, { failAfter: 3 }));
    await ing.start();
    await emit(400, 40, base + 103);
    await drain(ing);
    await ing.stop();
    expect(await counts(base + 103)).toEqual({ raw: 400, hourly: 400, spent: 400_000_000 });
  });

  it('a restarted or replacement ingester finishes a half-done batch without double counting', async () => {
    // The first ingester inserts, but dies before acknowledging (every answer is lost).
    const dying = make(flaky(fx.app.svc.clickhouse as ClickHouseClient, { forever: 'after' }), { consumer: `dying-${base}` });
    await dying.start();
    await emit(300, 30, base + 104);
    for (let i = 0; i < 100 && dying.failures < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await dying.stop();
    expect((await dying.backlog()).pending).toBeGreaterThan(0);
    // Another ingester takes over the dead one's entries at once.
    const next = make(fx.app.svc.clickhouse as ClickHouseClient, { consumer: `next-${base}`, claimIdleMs: 1 });
    await next.start();
    await drain(next);
    await next.stop();
    expect(await counts(base + 104)).toEqual({ raw: 300, hourly: 300, spent: 300_000_000 });
  });

  it('reads and records the next batch while one inserts, and after a crash re-inserts each whole with its own token', async () => {
    // Every insert lands but its answer is lost: the first batch retries while the next is read and recorded.
    const dying = make(flaky(fx.app.svc.clickhouse as ClickHouseClient, { forever: 'after' }), { consumer: `dying-2-${base}` });
    await dying.start();
    await emit(1_500, 50, base + 105);
    const tokensPending = async () => {
      const pending = (await fx.app.svc.redis.xpending(EVENT_STREAM, INGEST_GROUP, '-', '+', 1_000, `dying-2-${base}`)) as [string][];
      const tokens = pending.length ? await fx.app.svc.redis.hmget('{events}:ingest:entry-token', ...pending.map((p) => p[0])) : [];
      return { entries: pending.length, tokens: new Set(tokens), unrecorded: tokens.filter((t) => !t).length };
    };
    for (let i = 0; i < 100 && (await tokensPending()).tokens.size < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await dying.stop();
    const left = await tokensPending();
    // Two batches or more are pending, every entry recorded under its batch's token.
    expect(left.tokens.size).toBeGreaterThanOrEqual(2);
    expect(left.unrecorded).toBe(0);
    const next = make(fx.app.svc.clickhouse as ClickHouseClient, { consumer: `next-2-${base}`, claimIdleMs: 1 });
    await next.start();
    await drain(next);
    await next.stop();
    expect(await counts(base + 105)).toEqual({ raw: 1_500, hourly: 1_500, spent: 1_500_000_000 });
  });

  /** Entries no engine writes: not msgpack (0xc1 is never used), not a list, and no count with bytes that do not decode. */
  async function poison(): Promise<string[]> {
    const r = fx.app.svc.redis;
    return [
      (await r.xadd(EVENT_STREAM, '*', 'n', 1, 'b', Buffer.from([0xc1, 0x00]))) as string,
      (await r.xadd(EVENT_STREAM, '*', 'n', 1, 'b', pack(5))) as string,
      (await r.xadd(EVENT_STREAM, '*', 'b', Buffer.from([0x91, 0xc1]))) as string,
    ];
  }
  const deadLettersOf = async (ids: string[]) =>
    (await fx.app.svc.redis.xrange(EVENT_DEAD_LETTERS, '-', '+')).map(([, f]) => f[f.indexOf('id') + 1]).filter((id) => id !== undefined && ids.includes(id));

  it('moves stream entries that are not events to the dead letters, and every event around them flows on, counted once', async () => {
    const ing = make(fx.app.svc.clickhouse as ClickHouseClient);
    await emit(200, 20, base + 108);
    const bad = await poison();
    await emit(200, 20, base + 108);
    await ing.start();
    await drain(ing);
    await ing.stop();
    expect(await counts(base + 108)).toEqual({ raw: 400, hourly: 400, spent: 400_000_000 });
    expect(ing.deadLetters).toBe(3);
    expect((await deadLettersOf(bad)).sort()).toEqual([...bad].sort());
    const [entry] = (await fx.app.svc.redis.xrangeBuffer(EVENT_DEAD_LETTERS, '-', '+')).filter(([, f]) => String(f[1]) === bad[1]);
    const fields = entry?.[1].map(String) ?? [];
    // The reason, and the bytes as they were, for whoever mends the writer.
    expect(fields[fields.indexOf('error') + 1]).toBeTruthy();
    expect(entry?.[1][fields.indexOf('b') + 1]).toEqual(pack(5));
  });

  it('a batch with bad entries re-inserted after a crash is counted once', async () => {
    const dying = make(flaky(fx.app.svc.clickhouse as ClickHouseClient, { forever: 'after' }), { consumer: `dying-3-${base}` });
    await emit(150, 30, base + 109);
    const bad = await poison();
    await emit(150, 30, base + 109);
    await dying.start();
    for (let i = 0; i < 100 && dying.failures < 2; i++) await new Promise((r) => setTimeout(r, 50));
    await dying.stop();
    expect((await dying.backlog()).pending).toBeGreaterThan(0);
    const next = make(fx.app.svc.clickhouse as ClickHouseClient, { consumer: `next-3-${base}`, claimIdleMs: 1 });
    await next.start();
    await drain(next);
    await next.stop();
    expect(await counts(base + 109)).toEqual({ raw: 300, hourly: 300, spent: 300_000_000 });
    // Written again by the successor (before its acknowledgement), never lost.
    expect(new Set(await deadLettersOf(bad))).toEqual(new Set(bad));
  });

  it('an ingester cut off mid-run (batches reading, building and inserting at once) leaves the rest to its successor, every event counted once', async () => {
    const cut = new Redis(fx.redis.url, { enableAutoPipelining: false });
    const dying = make(fx.app.svc.clickhouse as ClickHouseClient, { consumer: `cut-${base}`, redis: cut });
    await dying.start();
    await emit(3_000, 100, base + 106);
    for (let i = 0; i < 400 && dying.batches < 1; i++) await new Promise((r) => setTimeout(r, 5));
    // Its connection gone at once: whatever it had read, recorded, built or inserted but not acknowledged stays pending.
    cut.disconnect();
    const next = make(fx.app.svc.clickhouse as ClickHouseClient, { consumer: `cut-next-${base}`, claimIdleMs: 1 });
    await next.start();
    await drain(next);
    await next.stop();
    await dying.stop();
    expect(dying.inserted).toBeGreaterThan(0);
    expect(next.inserted).toBeGreaterThan(0);
    expect(await counts(base + 106)).toEqual({ raw: 3_000, hourly: 3_000, spent: 3_000_000_000 });
  });
});
