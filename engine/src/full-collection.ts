import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full garbage collection, now. The engine calls it once, after its first index is built and before it
 * serves: the start's snapshot read leaves its Redis reply buffers (about 175 MiB at 100 000 campaigns, held
 * outside the heap) and the decoding's garbage for a full collection that, under steady load, may not come for
 * minutes, while V8 sizes the heap's next limit from that peak (bench/results/performance.md, "Memory at
 * 100 000 campaigns"). Never on a request path: a full collection of a large heap takes tens of milliseconds.
 */
export function collectGarbageNow(): void {
  // `gc` exists only with --expose-gc; setting the flag at run time and taking `gc` from a new context gives
  // it without asking every launcher of the engine (pnpm start, tests, benches) for a node argument.
  setFlagsFromString('--expose-gc');
  (runInNewContext('gc') as () => void)();
}
