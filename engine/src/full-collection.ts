import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/** `gc`'s options (V8's gc extension); `last-resort` is V8's collection of all available garbage. */
type Gc = (options?: {
  type?: 'major' | 'minor';
  execution?: 'sync' | 'async';
  flavor?: 'regular' | 'last-resort';
}) => void;

/**
 * A full garbage collection, now, that also gives V8's spare pages back. The engine calls it once, after its
 * first index is built and before it serves: the start's snapshot read and full build leave garbage for a full
 * collection that, under steady load, may not come for minutes. A regular full collection frees the objects
 * but keeps the pages they were on, resident, in V8's pool, and the young generation at the size the build grew
 * it to (128 MiB on Node 24): at 100 000 campaigns, 820 MiB of V8 pages for a 566 MiB heap. The last-resort
 * flavour (what V8 runs before it gives up on memory) releases the pool and shrinks the young generation, but
 * also sets the next full collection at 1.1 times the live heap, so the first seconds of traffic ran one at
 * once (bids p99 0.6-1.3 s in bench:config): a regular collection after it sets the limit as V8 does under
 * load, from its collector's and the program's speeds (bench/results/ab-history.md, "Step: RSS at 100 000
 * campaigns"). Never on a request path: a full collection of a large heap takes tens to hundreds of
 * milliseconds.
 */
export function collectGarbageNow(): void {
  // `gc` exists only with --expose-gc; setting the flag at run time and taking `gc` from a new context gives
  // it without asking every launcher of the engine (pnpm start, tests, benches) for a node argument.
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as Gc;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  // Without options: on Node 20 (which has no last-resort flavour) `gc` with options left some garbage reachable.
  gc();
}

/**
 * Lets V8's old generation grow `percent` past the live heap before its next full collection (config
 * ENGINE_HEAP_GROWING_PERCENT, default 100; 0 leaves V8's choice), unless the operator passed the node argument.
 * V8's own choice under load was 4 times the live heap (300 MiB live at 100 000 campaigns, 1.2 GiB allowed),
 * and the pages a full collection frees stay resident (V8 pools them), so RSS followed that peak: 1 423 MiB
 * after 1 000 changes under bids, 876 MiB at 1.5 times, about 1 GiB at 2 times (bench/results/ab-history.md,
 * "Step: RSS at 100 000 campaigns"). A factor, not a cap: a larger configuration gets a proportionally larger
 * heap, never an out-of-memory kill. The price is more full collections; at 1.5 times they came so often while
 * changes were applied that bids waited (bench/results/performance.md, "Settings these figures decided"), hence 2 times.
 */
export function boundHeapGrowth(percent: number, execArgv: readonly string[] = process.execArgv): boolean {
  if (percent <= 0 || execArgv.some((a) => /^--heap[-_]growing[-_]percent\b/.test(a))) return false;
  // Read by V8 at every limit it computes: setting it at run time takes effect from the next collection.
  setFlagsFromString(`--heap-growing-percent=${percent}`);
  return true;
}

/**
 * V8's arguments for an engine process that marks its full collections on its event loop, in steps between
 * requests (config ENGINE_CONCURRENT_MARKING=false, the default): `--no-concurrent-marking`, and
 * `--no-separate-gc-phases` so that young collections run during the 1.5 s such marking takes at 100 000
 * campaigns (else a full young generation makes V8 finish the full collection at once, its marking in its
 * pause: 46 ms of a 61 ms pause). With helper threads on cores the engine shares, V8 made up for their lag with
 * marking steps of 5-19 ms on the event loop (bench/results/ab-history.md, "Step: the full collections' pause").
 * Node arguments, given at spawn (the launcher, the benches): set at run time, `--no-concurrent-marking` was
 * ignored in one bench run of six.
 */
export function markingArgs(concurrent: boolean): string[] {
  return concurrent ? [] : ['--no-concurrent-marking', '--no-separate-gc-phases'];
}

/**
 * V8's argument that caps an engine's young generation at semi-spaces of `mb` MiB; 0 leaves V8's choice. Why 16
 * and what it costs: ENGINE_SEMI_SPACE_MB's description (schemas/src/config/processes.ts). Only a node argument: V8 sizes
 * its heap when it starts (set at run time, it changed nothing).
 */
export function youngGenerationArgs(semiSpaceMb: number): string[] {
  return semiSpaceMb > 0 ? [`--max-semi-space-size=${semiSpaceMb}`] : [];
}

/** V8's node arguments for an engine process: what the launcher gives each engine, and the benches theirs. */
export function engineNodeArgs(o: { concurrentMarking: boolean; semiSpaceMb: number }): string[] {
  return [...markingArgs(o.concurrentMarking), ...youngGenerationArgs(o.semiSpaceMb)];
}

/**
 * The same at run time, for an engine started without them (`node engine/src/main.ts`): best effort, see
 * markingArgs. Skips a flag the process got as a node argument, in either form. Answers the flags set.
 */
export function keepMarkingOnLoop(concurrent: boolean, execArgv: readonly string[] = process.execArgv): string[] {
  const given = (flag: string) => {
    const name = flag.replace(/^--no-/, '').replaceAll('-', '[-_]');
    return execArgv.some((a) => new RegExp(`^--(no[-_])?${name}(=|$)`).test(a));
  };
  const set = markingArgs(concurrent).filter((flag) => !given(flag));
  for (const flag of set) setFlagsFromString(flag);
  return set;
}
