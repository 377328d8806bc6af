import { spawnSync } from 'node:child_process';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { chooseEngineNode } from './engine-node.ts';
import {
  boundHeapGrowth,
  collectGarbageNow,
  engineNodeArgs,
  keepMarkingOnLoop,
  markingArgs,
  youngGenerationArgs,
} from './full-collection.ts';

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

describe('youngGenerationArgs', () => {
  // What the engine's Node makes of them: its young generation after enough survivors to grow it to V8's default.
  const newSpaceMiB = (args: string[]) => {
    const script = `let keep = [];
for (let i = 0; i < 4e6; i++) { keep.push({ i }); if (keep.length > 3e5) keep = []; }
console.log(require('v8').getHeapSpaceStatistics().find((s) => s.space_name === 'new_space').space_size / 2 ** 20);`;
    const run = spawnSync(chooseEngineNode('auto').execPath, [...args, '-e', script], { encoding: 'utf8' });
    expect(run.stderr).toBe('');
    return Number(run.stdout);
  };

  it("caps the engine's young generation at two semi-spaces of the size given, or leaves V8's at 0", () => {
    expect(youngGenerationArgs(0)).toEqual([]);
    expect(newSpaceMiB(youngGenerationArgs(8))).toBeLessThanOrEqual(16);
    expect(newSpaceMiB(youngGenerationArgs(0))).toBeGreaterThan(16);
  });
});

describe('engineNodeArgs', () => {
  it('gives an engine the marking and the young generation arguments together, as the launcher and the benches pass them', () => {
    expect(engineNodeArgs({ concurrentMarking: false, semiSpaceMb: 16 })).toEqual([
      ...markingArgs(false),
      '--max-semi-space-size=16',
    ]);
    expect(engineNodeArgs({ concurrentMarking: true, semiSpaceMb: 0 })).toEqual([]);
  });
});
