import { describe, expect, it } from 'vitest';
import { slices } from './slices.ts';

describe('slices', () => {
  it('lets a timer in only once the slice has passed', async () => {
    const pause = slices(20);
    let ran = false;
    setImmediate(() => (ran = true));
    await pause();
    expect(ran).toBe(false);
    const until = performance.now() + 25;
    while (performance.now() < until);
    await pause();
    expect(ran).toBe(true);
  });
});
