import type { EngineEvent } from '@adnet/schemas/events';
import { connectRedis } from '@adnet/runtime/redis-connect';
import { EVENT_DEAD_LETTERS, EVENT_STREAM } from '@adnet/schemas/redis-keys';
import { unpack } from '@adnet/schemas/wire/msgpack';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startRedisCluster } from '@adnet/test-support/redis-cluster';
import type { TestRedisCluster } from '@adnet/test-support/redis-cluster';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';
import {
  addDeadLetters,
  addReplayedEntry,
  listDeadLetters,
  refusedEventLetters,
  replayDeadLetter,
} from '../src/ingest/dead-letters.ts';

const event = (id: string) => ({ id, type: 'impression', ts: 1, engine: 'e' }) as unknown as EngineEvent;

/** The event ids in the stream's entries, one list per entry. */
async function streamEvents(redis: Redis): Promise<string[][]> {
  const entries = await redis.xrangeBuffer(EVENT_STREAM, '-', '+');
  return entries.map(([, fields]) => {
    const b = fields[fields.findIndex((f, i) => i % 2 === 0 && String(f) === 'b') + 1] as Buffer;
    return unpack<{ id: string }[]>(b).map((e) => e.id);
  });
}

async function oneLetter(redis: Redis, ids: string[]): Promise<string> {
  // One key a command: in a cluster the two sit in different slots.
  await redis.del(EVENT_STREAM);
  await redis.del(EVENT_DEAD_LETTERS);
  await addDeadLetters(
    redis,
    refusedEventLetters(ids.map((id) => ({ entryId: '1-0', event: event(id), reason: 'refused' }))),
  );
  const [letter] = await listDeadLetters(redis, { count: 10 });
  return (letter as { deadId: string }).deadId;
}

describe.each([
  ['one Redis server', 'single'],
  ['a Redis Cluster of three masters', 'cluster'],
] as const)('replaying a dead letter on %s', (_, kind) => {
  let server: TestRedis | TestRedisCluster;
  let redis: Redis;
  beforeAll(async () => {
    server = kind === 'single' ? await startRedis() : await startRedisCluster(3);
    redis = connectRedis(server.url, { maxRetriesPerRequest: 3 });
  }, 60_000);
  afterAll(async () => {
    await redis.quit();
    await server.stop();
  });

  it('adds its events to the stream once and removes the letter', async () => {
    const deadId = await oneLetter(redis, ['a', 'b']);
    expect(await replayDeadLetter(redis, deadId)).toBe(true);
    expect(await streamEvents(redis)).toEqual([['a', 'b']]);
    expect(await listDeadLetters(redis, { count: 10 })).toEqual([]);
    expect(await replayDeadLetter(redis, deadId)).toBe(false);
    expect(await streamEvents(redis)).toEqual([['a', 'b']]);
  });

  it('a replay cut short after it added the events (the letter still there), run again, adds nothing more', async () => {
    const deadId = await oneLetter(redis, ['c']);
    const [letter] = await listDeadLetters(redis, { count: 10 });
    expect(await addReplayedEntry(redis, letter as NonNullable<typeof letter>)).toBe(true);
    expect((await listDeadLetters(redis, { count: 10 })).map((l) => l.deadId)).toEqual([deadId]);
    expect(await replayDeadLetter(redis, deadId)).toBe(true);
    expect(await streamEvents(redis)).toEqual([['c']]);
    expect(await listDeadLetters(redis, { count: 10 })).toEqual([]);
  });

  it('twenty replays of one letter at once add its events once', async () => {
    const deadId = await oneLetter(redis, ['d', 'e', 'f']);
    const results = await Promise.all(Array.from({ length: 20 }, () => replayDeadLetter(redis, deadId)));
    expect(results).toContain(true);
    expect(await streamEvents(redis)).toEqual([['d', 'e', 'f']]);
    expect(await listDeadLetters(redis, { count: 10 })).toEqual([]);
  });
});
