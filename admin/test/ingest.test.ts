import { ClickHouseError } from '@clickhouse/client';
import type { ClickHouseClient } from '@clickhouse/client';
import type { EngineEvent } from '@adnet/schemas/events';
import { xaddArgs } from '@adnet/schemas/wire/event-stream';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { EVENT_DEAD_LETTERS, EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { pack, unpack } from '@adnet/schemas/wire/msgpack';
import { listDeadLetters, replayDeadLetter } from '../src/ingest/dead-letters.ts';
import { INGEST_GROUP, Ingester } from '../src/ingest/ingester.ts';
import { createLogger } from '../src/log.ts';
import { Redis } from 'ioredis';
import { useTestApp } from '@adnet/test-support/admin';

const fx = useTestApp({}, { clickhouse: true });
const log = createLogger(process.env.TEST_LOG ?? 'silent');
let seq = 0;

/** A won bid of `campaign`, charged 1 000 000 nano-cents, as engines write it. */
const win = (campaign: number): EngineEvent => ({
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
});

/** Writes events to the stream exactly as engines do: msgpack batches in field `b`. */
async function emit(count: number, perEntry: number, campaign: number): Promise<void> {
  const redis = fx.app.svc.redis;
  for (let i = 0; i < count; i += perEntry) {
    const batch: EngineEvent[] = Array.from({ length: Math.min(perEntry, count - i) }, () => win(campaign));
    await redis.xadd(...xaddArgs(batch, 10_000_000));
  }
}

/** One stream entry of these events, whatever they hold (a buggy or hostile writer): its id. */
async function emitEntry(events: readonly unknown[]): Promise<string> {
  return (await fx.app.svc.redis.xadd(EVENT_STREAM, '*', 'n', events.length, 'b', pack(events))) as string;
}

async function counts(campaign: number): Promise<{ raw: number; hourly: number; spent: number }> {
  const ch = fx.app.svc.clickhouse as ClickHouseClient;
  const q = async (query: string) =>
    (
      await (
        await ch.query({ query, query_params: { c: campaign }, format: 'JSONEachRow' })
      ).json<Record<string, number | string>>()
    )[0] ?? {};
  const raw = await q('SELECT count() AS n FROM adnet.events WHERE campaign_id = {c:UInt32}');
  const hourly = await q(
    'SELECT sum(impressions) AS n, sum(spent_nano) AS s FROM adnet.stats_hourly WHERE campaign_id = {c:UInt32}',
  );
  return { raw: Number(raw.n), hourly: Number(hourly.n), spent: Number(hourly.s) };
}

/** A client whose inserts fail as scripted; `after` means the insert happened and only the answer was lost. */
function flaky(
  real: ClickHouseClient,
  plan: { failBefore?: number; failAfter?: number; forever?: 'before' | 'after' },
): ClickHouseClient {
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

/** A ClickHouse error as a server or chDB answers it (@clickhouse/client's own class). */
const chError = (code: number, type: string, message: string) =>
  new ClickHouseError({ code: String(code), type, message });

/** The deduplication token of an insert as the ingester sends it (rows in the body, or INSERT ... SELECT FROM file()). */
function tokenOf(
  prop: 'insert' | 'command',
  args: { clickhouse_settings?: { insert_deduplication_token?: string }; query?: string },
): string {
  if (prop === 'insert') return String(args.clickhouse_settings?.insert_deduplication_token);
  return /insert_deduplication_token = '([^']*)'/.exec(args.query ?? '')?.[1] ?? '';
}

/**
 * A client that records each insert's token and, counting from the first insert ClickHouse refused, throws
 * `inject(n)` (when it gives an error) before the n-th insert after it, which then never reaches ClickHouse.
 */
function afterRefusal(
  real: ClickHouseClient,
  inject: (n: number) => Error | undefined,
): { client: ClickHouseClient; tokens: string[]; injectedAt: number[] } {
  const seen = { client: real, tokens: [] as string[], injectedAt: [] as number[] };
  let since = -1;
  seen.client = new Proxy(real, {
    get(target, prop, receiver) {
      if (prop !== 'insert' && prop !== 'command') return Reflect.get(target, prop, receiver) as unknown;
      return async (args: never) => {
        const token = tokenOf(prop, args);
        // Migrations and test statements are not inserts of events.
        if (!token) return prop === 'insert' ? target.insert(args) : target.command(args);
        seen.tokens.push(token);
        if (since >= 0) {
          since++;
          const err = inject(since);
          if (err) {
            seen.injectedAt.push(seen.tokens.length - 1);
            throw err;
          }
        }
        try {
          return (await (prop === 'insert' ? target.insert(args) : target.command(args))) as unknown;
        } catch (err) {
          if (since < 0) since = 0;
          throw err;
        }
      };
    },
  });
  return seen;
}

/** The dead letters written for these entries: their fields by name, `b` decoded. */
async function deadLettersFor(
  ids: readonly string[],
): Promise<{ id: string; error: string; n: string | undefined; events: unknown[] }[]> {
  const out = [];
  for (const [, fields] of await fx.app.svc.redis.xrangeBuffer(EVENT_DEAD_LETTERS, '-', '+')) {
    const f = new Map<string, Buffer>();
    for (let i = 0; i + 1 < fields.length; i += 2) f.set(String(fields[i]), fields[i + 1] as Buffer);
    const id = String(f.get('id'));
    if (!ids.includes(id)) continue;
    out.push({
      id,
      error: String(f.get('error')),
      n: f.has('n') ? String(f.get('n')) : undefined,
      events: unpack<unknown[]>(f.get('b') as Buffer),
    });
  }
  return out;
}

const rawCount = async (where: string) => {
  const ch = fx.app.svc.clickhouse as ClickHouseClient;
  const [row] = await (
    await ch.query({ query: `SELECT count() AS n FROM adnet.events WHERE ${where}`, format: 'JSONEachRow' })
  ).json<{ n: number | string }>();
  return Number(row?.n);
};

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

  it('at rest for a backup: ClickHouse holds exactly what was acknowledged, nothing is read meanwhile, and reading goes on after', async () => {
    const ing = make(fx.app.svc.clickhouse as ClickHouseClient);
    await ing.start();
    await emit(600, 50, base + 116);
    const inside = await ing.quiesce(async () => {
      const atRest = await ing.backlog();
      const raw = (await counts(base + 116)).raw;
      // Entries that come now wait, however long the backup takes (past flushMs).
      await emit(200, 50, base + 116);
      await new Promise((r) => setTimeout(r, 300));
      return { atRest, raw, later: await ing.backlog() };
    });
    expect(inside.atRest.pending).toBe(0);
    // Every entry delivered to the group is in ClickHouse; the rest were never read.
    expect(inside.raw).toBe(600 - 50 * inside.atRest.lag);
    expect(inside.later).toEqual({ length: inside.atRest.length + 4, lag: inside.atRest.lag + 4, pending: 0 });
    await drain(ing);
    await ing.stop();
    expect(await counts(base + 116)).toEqual({ raw: 800, hourly: 800, spent: 800_000_000 });
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
      await ch.query({
        query: `SELECT sum(conversions) AS c FROM adnet.stats_hourly WHERE campaign_id = ${base + 107}`,
        format: 'JSONEachRow',
      })
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
    const dying = make(flaky(fx.app.svc.clickhouse as ClickHouseClient, { forever: 'after' }), {
      consumer: `dying-${base}`,
    });
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
    const dying = make(flaky(fx.app.svc.clickhouse as ClickHouseClient, { forever: 'after' }), {
      consumer: `dying-2-${base}`,
    });
    await dying.start();
    await emit(1_500, 50, base + 105);
    const tokensPending = async () => {
      const pending = (await fx.app.svc.redis.xpending(
        EVENT_STREAM,
        INGEST_GROUP,
        '-',
        '+',
        1_000,
        `dying-2-${base}`,
      )) as [string][];
      const tokens = pending.length
        ? await fx.app.svc.redis.hmget('{events}:ingest:entry-token', ...pending.map((p) => p[0]))
        : [];
      return { entries: pending.length, tokens: new Set(tokens), unrecorded: tokens.filter((t) => !t).length };
    };
    for (let i = 0; i < 100 && (await tokensPending()).tokens.size < 2; i++)
      await new Promise((r) => setTimeout(r, 50));
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
    (await fx.app.svc.redis.xrange(EVENT_DEAD_LETTERS, '-', '+'))
      .map(([, f]) => f[f.indexOf('id') + 1])
      .filter((id) => id !== undefined && ids.includes(id));

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
    const [entry] = (await fx.app.svc.redis.xrangeBuffer(EVENT_DEAD_LETTERS, '-', '+')).filter(
      ([, f]) => String(f[1]) === bad[1],
    );
    const fields = entry?.[1].map(String) ?? [];
    // The reason, and the bytes as they were, for whoever mends the writer.
    expect(fields[fields.indexOf('error') + 1]).toBeTruthy();
    expect(entry?.[1][fields.indexOf('b') + 1]).toEqual(pack(5));
  });

  it('a batch with bad entries re-inserted after a crash is counted once', async () => {
    const dying = make(flaky(fx.app.svc.clickhouse as ClickHouseClient, { forever: 'after' }), {
      consumer: `dying-3-${base}`,
    });
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
  it('leaves out the events whose values the events table cannot hold, dead-letters them, and counts every event around them once', async () => {
    const c = base + 110;
    // Each wrapped, truncated or refused before: an id past 32 bits (campaign c again as RowBinary), a fraction of a
    // nano-cent, a negative id (refused as text), a year past the hourly table's 2106, an id as text, money past 2^53.
    const hostile = [
      { ...win(c), campaign_id: 2 ** 32 + c },
      { ...win(c), charge_nano: 1.5 },
      { ...win(c), campaign_id: -1 },
      { ...win(c), ts: Date.UTC(2300, 0, 1) },
      { ...win(c), creative_id: '7' },
      { ...win(c), charge_nano: 2 ** 60 },
    ];
    const ing = make(fx.app.svc.clickhouse as ClickHouseClient);
    await emit(200, 20, c);
    const mixed = await emitEntry([
      win(c),
      hostile[0],
      win(c),
      hostile[1],
      hostile[2],
      win(c),
      hostile[3],
      hostile[4],
      hostile[5],
    ]);
    await emit(197, 20, c);
    await ing.start();
    await drain(ing);
    await ing.stop();
    expect(await counts(c)).toEqual({ raw: 400, hourly: 400, spent: 400_000_000 });
    expect(ing.refusedEvents).toBe(6);
    const letters = await deadLettersFor([mixed]);
    expect(letters).toHaveLength(1);
    // The refused events alone, as an entry of their own: `XADD events * n <n> b <b>` once the cause is mended.
    expect(letters[0]).toMatchObject({ n: '6', events: hostile });
    for (const column of ['campaign_id', 'charge_nano', 'ts', 'creative_id'])
      expect(letters[0]?.error).toContain(`${column}: `);
  });

  it('dead-letters the rows ClickHouse itself refuses (a constraint added under the ingester), inserts the rest of their batch, and retries what is not a refusal', async () => {
    const ch = fx.app.svc.clickhouse as ClickHouseClient;
    const [c, other] = [base + 111, base + 112];
    const refusedDomain = `refused-${base}.example`;
    await ch.command({
      query: `ALTER TABLE adnet.events ADD CONSTRAINT refuse_${base} CHECK site_domain != '${refusedDomain}'`,
    });
    let bad: string[] = [];
    try {
      const hostile = () => ({ ...win(other), site_domain: refusedDomain });
      // Mid-isolation, ClickHouse out of memory, then merges lagging: retried with the same token, never split for it.
      const seen = afterRefusal(ch, (n) =>
        n === 2
          ? chError(241, 'MEMORY_LIMIT_EXCEEDED', 'Memory limit (total) exceeded: would use 3.50 GiB (test)')
          : n === 4
            ? chError(
                252,
                'TOO_MANY_PARTS',
                'Too many parts (3001 with average size of 2.00 KiB) in table. Merges are processing significantly slower than inserts (test)',
              )
            : undefined,
      );
      const ing = make(seen.client);
      await emit(150, 25, c);
      bad = [
        await emitEntry([win(c), hostile(), win(c)]),
        await emitEntry([hostile(), hostile()]),
        await emitEntry([win(c), win(c), win(c), hostile(), hostile()]),
      ];
      await emit(245, 25, c);
      await ing.start();
      await drain(ing);
      await ing.stop();
      expect(await counts(c)).toEqual({ raw: 400, hourly: 400, spent: 400_000_000 });
      expect(await rawCount(`campaign_id = ${other}`)).toBe(0);
      const letters = await deadLettersFor(bad);
      expect(letters.map((l) => [l.id, l.n]).sort()).toEqual([...bad].map((id, i) => [id, ['1', '2', '2'][i]]).sort());
      for (const l of letters) expect(l.error).toContain('VIOLATED_CONSTRAINT');
      expect(ing.refusedEvents).toBe(5);
      // Each injected failure was followed by the same insert again, with the same token.
      expect(seen.injectedAt).toHaveLength(2);
      for (const i of seen.injectedAt) expect(seen.tokens[i + 1]).toBe(seen.tokens[i]);
    } finally {
      await ch.command({ query: `ALTER TABLE adnet.events DROP CONSTRAINT refuse_${base}` });
    }
    // Mended (the constraint gone), the letters go back to the stream as they are, and are counted once.
    for (const l of await listDeadLetters(fx.app.svc.redis, { count: 100_000 })) {
      if (bad.includes(l.entryId)) expect(await replayDeadLetter(fx.app.svc.redis, l.deadId)).toBe(true);
    }
    const again = make(ch);
    await again.start();
    await drain(again);
    await again.stop();
    expect(await rawCount(`campaign_id = ${other}`)).toBe(5);
    expect(await counts(c)).toEqual({ raw: 400, hourly: 400, spent: 400_000_000 });
    expect(await deadLettersFor(bad)).toEqual([]);
  });

  it('an ingester that stops in the middle of isolating refused rows leaves the rest to its successor, which walks the same halves: every row counted once, even once ClickHouse accepts them', async () => {
    const ch = fx.app.svc.clickhouse as ClickHouseClient;
    const [c, other] = [base + 113, base + 114];
    const refusedDomain = `refused-later-${base}.example`;
    await ch.command({
      query: `ALTER TABLE adnet.events ADD CONSTRAINT refuse_later_${base} CHECK site_domain != '${refusedDomain}'`,
    });
    let dropped = false;
    try {
      const hostile = [0, 1, 2].map(() => ({ ...win(other), site_domain: refusedDomain }));
      await emit(300, 25, c);
      const mixed = await emitEntry([win(c), hostile[0], win(c), hostile[1], win(c), hostile[2], win(c), win(c)]);
      await emit(95, 25, c);
      // After the batch's refusal one half goes in, then ClickHouse is unreachable for good: the ingester stops mid-way.
      const seen = afterRefusal(ch, (n) => (n >= 2 ? new Error('clickhouse unreachable (test)') : undefined));
      const dying = make(seen.client, { consumer: `isolating-${base}` });
      await dying.start();
      for (let i = 0; i < 200 && seen.tokens.length < 4; i++) await new Promise((r) => setTimeout(r, 25));
      await dying.stop();
      const landed = await rawCount(`campaign_id = ${c}`);
      expect(landed).toBeGreaterThan(0);
      expect(landed).toBeLessThan(400);
      expect((await dying.backlog()).pending).toBeGreaterThan(0);
      // ClickHouse now accepts every row (the constraint gone): the successor must still not insert the batch whole.
      await ch.command({ query: `ALTER TABLE adnet.events DROP CONSTRAINT refuse_later_${base}` });
      dropped = true;
      const next = make(ch, { consumer: `isolating-next-${base}`, claimIdleMs: 1 });
      await next.start();
      await drain(next);
      await next.stop();
      expect(await counts(c)).toEqual({ raw: 400, hourly: 400, spent: 400_000_000 });
      // Each refused event is either in ClickHouse or in the dead letters, once.
      const inserted = await rawCount(`campaign_id = ${other}`);
      const dead = (await deadLettersFor([mixed])).flatMap((l) => l.events as EngineEvent[]);
      expect(dead.every((e) => hostile.some((h) => h.id === e.id))).toBe(true);
      expect(inserted + dead.length).toBe(3);
    } finally {
      if (!dropped) await ch.command({ query: `ALTER TABLE adnet.events DROP CONSTRAINT refuse_later_${base}` });
    }
  });

  it('a batch ClickHouse refuses for spanning too many months is inserted in parts, nothing dead-lettered', async () => {
    const c = base + 115;
    const ing = make(fx.app.svc.clickhouse as ClickHouseClient);
    // 120 months: over max_partitions_per_insert_block (100) of a table partitioned by month; each half is under it.
    await emitEntry(Array.from({ length: 120 }, (_, i) => ({ ...win(c), ts: Date.UTC(2027, i, 1) })));
    await ing.start();
    await drain(ing);
    await ing.stop();
    expect(await counts(c)).toEqual({ raw: 120, hourly: 120, spent: 120_000_000 });
    expect(ing.refusedEvents).toBe(0);
    expect(ing.deadLetters).toBe(0);
  });
});
