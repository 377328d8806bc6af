import { Probe } from '@adnet/runtime/probe';
import { describe, expect, it } from 'vitest';
import type { EngineIndex } from '../index/engine-index.ts';
import { EVENT_WRITE_LATE_MS, MIRROR_BEHIND_MS, engineChecks } from './readiness.ts';

const index = { seq: '17-0' } as EngineIndex;
const idle = { backlog: 0, inWrite: 0, dropped: 0, failingSinceMs: undefined, writeStartedMs: undefined };

async function answered(): Promise<Probe<string>> {
  const probe = new Probe({ intervalMs: 60_000, deadlineMs: 2_000, check: () => Promise.resolve('PONG') });
  await probe.start();
  probe.stop();
  return probe;
}

describe("an engine's readiness checks", () => {
  it('names the index down until it is loaded, the mirror behind when its catch-ups stall, and the event writer behind', async () => {
    const redisProbe = await answered();
    const now = Date.now();
    const states = (c: ReturnType<typeof engineChecks>) => Object.fromEntries(c.map((x) => [x.name, x.state]));
    expect(
      states(
        engineChecks(
          { redisStatus: () => 'ready', redisProbe, mirror: { index: undefined, caughtUpAtMs: 0 }, events: idle },
          now,
        ),
      ),
    ).toEqual({
      redis: 'ok',
      index: 'down',
      'config-mirror': 'ok',
      'event-writer': 'ok',
    });
    const stalled = engineChecks(
      {
        redisStatus: () => 'reconnecting',
        redisProbe,
        mirror: { index, caughtUpAtMs: now - MIRROR_BEHIND_MS - 1_500 },
        events: { ...idle, backlog: 40, dropped: 2, failingSinceMs: now - 3_000 },
      },
      now,
    );
    expect(stalled).toEqual([
      { name: 'redis', state: 'down', detail: 'connection reconnecting' },
      { name: 'index', state: 'ok', detail: 'change-log position 17-0' },
      { name: 'config-mirror', state: 'behind', detail: 'last caught up with the change log 11.5 s ago' },
      {
        name: 'event-writer',
        state: 'behind',
        detail: 'writes to the event stream failing for 3.0 s; 0 events in the write, 40 more held, 2 dropped',
      },
    ]);
    const slowWrite = engineChecks(
      {
        redisStatus: () => 'ready',
        redisProbe,
        mirror: { index, caughtUpAtMs: now },
        events: { ...idle, inWrite: 5, writeStartedMs: now - EVENT_WRITE_LATE_MS - 1 },
      },
      now,
    );
    const waiting = engineChecks(
      {
        redisStatus: () => 'ready',
        redisProbe,
        mirror: { index, caughtUpAtMs: now },
        events: idle,
        journal: { settled: () => false },
      },
      now,
    );
    expect(waiting.at(-1)).toMatchObject({ name: 'journal', state: 'behind' });
    expect(slowWrite[3]).toMatchObject({
      state: 'behind',
      detail: expect.stringMatching(/^a write to the event stream unanswered for 2\.0 s; 5 events in the write/),
    });
  });
});
