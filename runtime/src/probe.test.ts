import { describe, expect, it } from 'vitest';
import { Probe } from './probe.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Probe', () => {
  it('keeps the last answer, calls a check overdue hung without sending another, and recovers', async () => {
    let calls = 0;
    let hold: (() => void) | undefined;
    let held = false;
    const probe = new Probe({
      intervalMs: 5,
      deadlineMs: 40,
      check: async () => {
        calls++;
        if (held) await new Promise<void>((r) => (hold = r));
        return calls;
      },
    });
    expect(probe.reading()).toEqual({ kind: 'unchecked' });
    await probe.start();
    expect(probe.reading()).toMatchObject({ kind: 'answered', value: 1 });
    held = true;
    await sleep(100);
    const reading = probe.reading();
    expect(reading.kind).toBe('hung');
    expect(reading.kind === 'hung' && reading.forMs).toBeGreaterThan(40);
    // One check out at a time, however long it hangs.
    const out = calls;
    await sleep(50);
    expect(calls).toBe(out);
    held = false;
    hold?.();
    await sleep(30);
    expect(probe.reading()).toMatchObject({ kind: 'answered' });
    expect(calls).toBeGreaterThan(out);
    probe.stop();
  });

  it('reports a failed check with its error, and its start does not wait past the deadline', async () => {
    let fail = true;
    const probe = new Probe({
      intervalMs: 5,
      deadlineMs: 30,
      check: () => (fail ? Promise.reject(new Error('connection refused')) : Promise.resolve('PONG')),
    });
    await probe.start();
    expect(probe.reading()).toMatchObject({ kind: 'failed', error: 'connection refused' });
    expect(probe.lastAnswer).toBeUndefined();
    fail = false;
    await sleep(30);
    expect(probe.reading()).toMatchObject({ kind: 'answered', value: 'PONG' });
    probe.stop();

    const never = new Probe({ intervalMs: 5, deadlineMs: 30, check: () => new Promise<never>(() => undefined) });
    const started = performance.now();
    await never.start();
    expect(performance.now() - started).toBeLessThan(200);
    await sleep(10);
    expect(never.reading().kind).toBe('hung');
    never.stop();
  });
});
