// Loaded into an engine process with `--import ./bench/src/loop-probe.ts` by bench:config: the event loop's
// delay measured inside the engine (perf_hooks.monitorEventLoopDelay at 1 ms resolution), read and reset
// over the engine's IPC channel. A preload rather than engine code so the same probe measures any tree
// (the before-and-after runs); the engine's own metric is `adnet_engine_event_loop_delay_max_seconds`.
import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

// The collector's pauses over the same window: which loop stalls are collections and which are work.
let gcMaxMs = 0;
let majorGcMaxMs = 0;
let majorGcs = 0;
let gcTotalMs = 0;
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    gcTotalMs += e.duration;
    gcMaxMs = Math.max(gcMaxMs, e.duration);
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) {
      majorGcs++;
      majorGcMaxMs = Math.max(majorGcMaxMs, e.duration);
    }
  }
}).observe({ entryTypes: ['gc'] });

export interface LoopDelay {
  type: 'loop-delay';
  maxMs: number;
  p99Ms: number;
  meanMs: number;
  samples: number;
  /** The longest collection pause, the longest major (mark-compact) one, how many majors, and all pauses' sum. */
  gcMaxMs: number;
  majorGcMaxMs: number;
  majorGcs: number;
  gcTotalMs: number;
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

export interface Memory {
  type: 'memory';
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
}

const mib = (bytes: number) => Math.round(bytes / 1048576);

process.on('message', (m: { type?: string }) => {
  if (m.type === 'memory') {
    // With BENCH_ENGINE_NODE_ARGS=--expose-gc: the live set, not what the next collection would free.
    (globalThis as { gc?: () => void }).gc?.();
    const u = process.memoryUsage();
    const reply: Memory = { type: 'memory', rssMiB: mib(u.rss), heapUsedMiB: mib(u.heapUsed), heapTotalMiB: mib(u.heapTotal), externalMiB: mib(u.external) };
    process.send?.(reply);
    return;
  }
  if (m.type !== 'loop-delay') return;
  const reply: LoopDelay = {
    type: 'loop-delay',
    maxMs: ms(delay.max),
    p99Ms: ms(delay.percentile(99)),
    meanMs: ms(delay.mean),
    samples: delay.count,
    gcMaxMs: Math.round(gcMaxMs * 100) / 100,
    majorGcMaxMs: Math.round(majorGcMaxMs * 100) / 100,
    majorGcs,
    gcTotalMs: Math.round(gcTotalMs),
  };
  delay.reset();
  gcMaxMs = majorGcMaxMs = gcTotalMs = majorGcs = 0;
  process.send?.(reply);
});
// The listener must not keep an engine alive that is told to stop.
process.channel?.unref();
