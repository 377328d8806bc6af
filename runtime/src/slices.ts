import { setImmediate as yieldToRequests } from 'node:timers/promises';

/**
 * A pause for long background passes (the rotation's refresh, the pacer's tick) that walk every campaign:
 * called often, it lets requests in once `sliceMs` have passed since the last time and costs nothing before,
 * so a pass over 100 000 campaigns never holds the event loop for much longer than `sliceMs`.
 */
export function slices(sliceMs: number): () => Promise<void> {
  let since = performance.now();
  return async () => {
    if (performance.now() - since < sliceMs) return;
    await yieldToRequests();
    since = performance.now();
  };
}
