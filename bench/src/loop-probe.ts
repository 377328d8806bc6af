// Loaded into an engine process with `--import ./bench/src/loop-probe.ts` by bench:config: the event loop's
// delay measured inside the engine (perf_hooks.monitorEventLoopDelay at 1 ms resolution), read and reset
// over the engine's IPC channel. A preload rather than engine code so the same probe measures any tree
// (the before-and-after runs). The engine's own metric, `adnet_engine_event_loop_delay_seconds{stat="max"}`, samples
// every METRICS_LOOP_DELAY_RESOLUTION_MS (5 ms): 1 ms here shows each stall's full length, and costs nothing once
// requests keep the loop awake (bench/results/ab-history.md, "The engine against its floor").
import { readFileSync } from 'node:fs';
import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';
import { getHeapSpaceStatistics } from 'node:v8';

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

// Which stalls are the engine's work and which are the machine's: on two cores shared with the generator and
// Redis, the engine's thread is sometimes simply off the CPU. Every 1 ms tick compares the wall time since the
// last one with the thread's CPU time over it; a gap over 5 ms is a stall, and the CPU time inside it is what
// the engine itself ran (one long task, or many short ones back to back), the rest is time it waited for a core.
// process.threadCpuUsage exists from Node 23.9; on an older Node the split is not reported.
const STALL_MS = 5;
const threadCpuMs = (): number | undefined => {
  const usage = (process as { threadCpuUsage?: () => { user: number; system: number } }).threadCpuUsage?.();
  return usage ? (usage.user + usage.system) / 1000 : undefined;
};
let stalls = 0;
let stallOnCpuMaxMs = 0;
let stallOffCpuMaxMs = 0;
let tickWall = performance.now();
let tickCpu = threadCpuMs();
setInterval(() => {
  const wall = performance.now();
  const cpu = threadCpuMs();
  const gap = wall - tickWall;
  if (gap > STALL_MS && cpu !== undefined && tickCpu !== undefined) {
    stalls++;
    const onCpu = Math.min(gap, cpu - tickCpu);
    stallOnCpuMaxMs = Math.max(stallOnCpuMaxMs, onCpu);
    stallOffCpuMaxMs = Math.max(stallOffCpuMaxMs, gap - onCpu);
  }
  tickWall = wall;
  tickCpu = cpu;
}, 1).unref();

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
  /**
   * Gaps over 5 ms between 1 ms ticks, the most CPU time the engine's thread spent inside one (its own work),
   * and the most time one spent off the CPU (waiting for a core): undefined where the Node cannot tell.
   */
  stalls: number;
  stallOnCpuMaxMs: number | undefined;
  stallOffCpuMaxMs: number | undefined;
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

export interface Memory {
  type: 'memory';
  rssMiB: number;
  heapUsedMiB: number;
  heapTotalMiB: number;
  externalMiB: number;
  /** V8's spaces, MiB: reserved (`size`), in use (`used`) and resident (`physical`), by space. */
  spaces: Record<string, { size: number; used: number; physical: number }>;
  /** Resident MiB of the process's mappings (/proc/self/smaps): anonymous 256 KiB ones (V8's pages), the malloc heap, the rest. */
  mappings: { v8Pages: number; v8PageCount: number; mallocHeap: number; other: number };
}

const mib = (bytes: number) => Math.round(bytes / 1048576);

function mappings(): Memory['mappings'] {
  const out = { v8Pages: 0, v8PageCount: 0, mallocHeap: 0, other: 0 };
  let kind: 'v8Pages' | 'mallocHeap' | 'other' = 'other';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      const size = parseInt(head[2] as string, 16) - parseInt(head[1] as string, 16);
      const name = head[3] ?? '';
      kind = name === '[heap]' ? 'mallocHeap' : name === '' && size === 262_144 ? 'v8Pages' : 'other';
      if (kind === 'v8Pages') out.v8PageCount++;
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss) out[kind] += Number(rss[1]) * 1024;
  }
  return {
    v8Pages: mib(out.v8Pages),
    v8PageCount: out.v8PageCount,
    mallocHeap: mib(out.mallocHeap),
    other: mib(out.other),
  };
}

process.on('message', (m: { type?: string }) => {
  if (m.type === 'memory') {
    // With BENCH_ENGINE_NODE_ARGS=--expose-gc: the live set, not what the next collection would free.
    (globalThis as { gc?: () => void }).gc?.();
    const u = process.memoryUsage();
    const spaces: Memory['spaces'] = {};
    for (const s of getHeapSpaceStatistics()) {
      spaces[s.space_name.replace(/_space$/, '')] = {
        size: mib(s.space_size),
        used: mib(s.space_used_size),
        physical: mib(s.physical_space_size),
      };
    }
    const reply: Memory = {
      type: 'memory',
      rssMiB: mib(u.rss),
      heapUsedMiB: mib(u.heapUsed),
      heapTotalMiB: mib(u.heapTotal),
      externalMiB: mib(u.external),
      spaces,
      mappings: mappings(),
    };
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
    stalls,
    stallOnCpuMaxMs: tickCpu === undefined ? undefined : Math.round(stallOnCpuMaxMs * 100) / 100,
    stallOffCpuMaxMs: tickCpu === undefined ? undefined : Math.round(stallOffCpuMaxMs * 100) / 100,
  };
  delay.reset();
  gcMaxMs = majorGcMaxMs = gcTotalMs = majorGcs = 0;
  stalls = stallOnCpuMaxMs = stallOffCpuMaxMs = 0;
  process.send?.(reply);
});
// The listener must not keep an engine alive that is told to stop.
process.channel?.unref();
