import { describe, expect, it } from 'vitest';
import { ENGINE_ROUTES, OPS_ROUTES } from './routes.ts';
import { STOP_STEPS, stopInOrder } from './stop.ts';
import type { StopStep, Stopping } from './stop.ts';

const before = (a: string, b: string) =>
  STOP_STEPS.findIndex((s) => s.name === a) < STOP_STEPS.findIndex((s) => s.name === b);

describe('the engine route tables', () => {
  it('name each method and path once, the catch-all last', () => {
    for (const table of [ENGINE_ROUTES, OPS_ROUTES]) {
      const keys = table.map((r) => `${r.method} ${r.path}`);
      expect(new Set(keys).size).toBe(keys.length);
      expect(keys.at(-1)).toBe('any /*');
    }
  });

  it('hold every public route the engine answers', () => {
    expect(ENGINE_ROUTES.map((r) => `${r.method} ${r.path}`)).toEqual([
      'post /openrtb/bid',
      'get /openrtb/win/:ticket',
      'get /openrtb/bill/:ticket',
      'get /openrtb/imptracker/:ticket',
      'get /openrtb/adm/:ticket',
      'get /t/vast/:event/:ticket',
      'get /w/:file',
      'get /imp',
      'get /px/:file',
      'get /go/:subid',
      'get /b/:ticket',
      'get /vast/:file',
      'get /c/:impression/:token',
      'get /preview/:subid',
      'get /about-ad/:ticket',
      'options /hb/bid',
      'post /hb/bid',
      'get /hb/won/:ticket',
      'get /push/vapid-public-key',
      'options /push/subscribe',
      'post /push/subscribe',
      'options /push/unsubscribe',
      'post /push/unsubscribe',
      'get /push/sw.js',
      'get /engine/healthz',
      'get /engine/readyz',
      'get /readyz',
      'any /*',
    ]);
  });
});

describe('the stop sequence', () => {
  it('gives every step a name of its own and the reason for its place', () => {
    expect(new Set(STOP_STEPS.map((s) => s.name)).size).toBe(STOP_STEPS.length);
    for (const step of STOP_STEPS) expect(step.why.length, step.name).toBeGreaterThan(10);
  });

  it('closes the public port first and the operators port last; answers requests before what they write through stops', () => {
    expect(STOP_STEPS[0]?.name).toBe('public listener');
    expect(STOP_STEPS.at(-1)?.name).toBe('operators listener');
    for (const later of ['journal', 'push sender', 'spend', 'events', 'redis connections'])
      expect(before('drain', later), later).toBe(true);
    expect(before('demand notices', 'demand connections')).toBe(true);
    expect(before('spend', 'budget release')).toBe(true);
    expect(before('budget release', 'events')).toBe(true);
    expect(before('events', 'redis connections')).toBe(true);
  });

  it('runs the steps one after another, each awaited', async () => {
    const ran: string[] = [];
    const steps: StopStep[] = [
      {
        name: 'slow',
        why: 'first in this test',
        run: async () => {
          await new Promise((r) => setTimeout(r, 20));
          ran.push('slow');
        },
      },
      {
        name: 'fast',
        why: 'second in this test',
        run: () => {
          ran.push('fast');
        },
      },
    ];
    await stopInOrder(steps, {} as Stopping);
    expect(ran).toEqual(['slow', 'fast']);
  });
});
