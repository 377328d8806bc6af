import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { boundHeapGrowth, collectGarbageNow, keepMarkingOnLoop, markingArgs } from './full-collection.ts';

describe('collectGarbageNow', () => {
  it('collects what nothing holds any more, at once', async () => {
    const ref = (() => new WeakRef({ rows: Array.from({ length: 1000 }, (_, i) => ({ i })) }))();
    // A WeakRef keeps its target for the rest of the turn that made or read it.
    await nextTurn();
    expect(ref.deref()).toBeDefined();
    await nextTurn();
    collectGarbageNow();
    expect(ref.deref()).toBeUndefined();
  });
});

describe('boundHeapGrowth', () => {
  it("leaves V8's heap growth to an operator who set it, or to V8 at 0", () => {
    expect(boundHeapGrowth(50, ['--import', 'tsx', '--heap-growing-percent=80'])).toBe(false);
    expect(boundHeapGrowth(50, ['--heap_growing_percent=80'])).toBe(false);
    expect(boundHeapGrowth(0, [])).toBe(false);
  });
});

describe('keepMarkingOnLoop', () => {
  it('marks on the loop with young collections meanwhile, unless configured or the operator chose', () => {
    expect(markingArgs(true)).toEqual([]);
    expect(keepMarkingOnLoop(true, [])).toEqual([]);
    expect(keepMarkingOnLoop(false, ['--concurrent-marking-max-worker-num=2'])).toEqual(markingArgs(false));
    expect(keepMarkingOnLoop(false, ['--import', 'tsx', '--concurrent-marking'])).toEqual(['--no-separate-gc-phases']);
    expect(keepMarkingOnLoop(false, ['--no_concurrent_marking', '--separate-gc-phases'])).toEqual([]);
  });
});
