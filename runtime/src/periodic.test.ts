import { describe, expect, it } from 'vitest';
import { Periodic } from './periodic.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('Periodic', () => {
  it('runs passes one at a time, an interval apart, and stops after the pass in progress', async () => {
    let active = 0;
    let most = 0;
    let passes = 0;
    const p = new Periodic({
      intervalMs: 5,
      runAtStart: true,
      onError: () => undefined,
      pass: async () => {
        most = Math.max(most, ++active);
        await sleep(15);
        active--;
        passes++;
      },
    });
    p.start();
    void p.runOnce(); // joins the pass in progress
    await sleep(100);
    await p.stop();
    const after = passes;
    await sleep(50);
    expect(most).toBe(1);
    expect(after).toBeGreaterThanOrEqual(2);
    expect(passes).toBe(after);
    expect(active).toBe(0);
  });

  it('reports a failed pass and keeps going', async () => {
    const errors: unknown[] = [];
    let calls = 0;
    const p = new Periodic({
      intervalMs: 1,
      onError: (e) => errors.push(e),
      pass: () => (++calls === 1 ? Promise.reject(new Error('boom')) : Promise.resolve()),
    });
    p.start();
    await sleep(50);
    await p.stop();
    expect(errors).toHaveLength(1);
    expect(calls).toBeGreaterThan(1);
  });

  it('says it is stopping from the moment stop is called', async () => {
    const seen: boolean[] = [];
    let release = () => undefined as void;
    const p = new Periodic({
      intervalMs: 1_000,
      onError: () => undefined,
      pass: () => new Promise<void>((r) => (release = r)).then(() => void seen.push(p.stopping)),
    });
    const pass = p.runOnce();
    const stopped = p.stop();
    release();
    await Promise.all([pass, stopped]);
    expect(seen).toEqual([true]);
  });
});
