// The bench's side of bench/src/loop-probe.ts: asks an engine started with `--import ./bench/src/loop-probe.ts`
// over its IPC channel for its loop delay (read and reset) or its memory.
import type { ChildProcess } from 'node:child_process';
import type { LoopDelay, Memory } from './loop-probe.ts';

/** The node arguments that load the probe into an engine (tsx first: the probe is TypeScript too). */
export const LOOP_PROBE_ARGS = ['--import', 'tsx', '--import', './bench/src/loop-probe.ts'];

export function askProbe<T extends LoopDelay | Memory>(proc: ChildProcess, type: T['type']): Promise<T> {
  return new Promise((resolve) => {
    const on = (m: { type?: string }) => {
      if (m.type !== type) return;
      proc.off('message', on);
      resolve(m as T);
    };
    proc.on('message', on);
    proc.send({ type });
  });
}

export const loopDelay = (proc: ChildProcess) => askProbe<LoopDelay>(proc, 'loop-delay');

/** A loop's longest delay, and in brackets the most of one stall the engine spent on the CPU (its own work). */
export const loopMax = (l: LoopDelay) =>
  l.stallOnCpuMaxMs === undefined ? `${l.maxMs}` : `${l.maxMs} (${l.stallOnCpuMaxMs})`;
