// Loaded into an engine process with `--import ./bench/src/loop-probe.ts` by bench:config: the event loop's
// delay measured inside the engine (perf_hooks.monitorEventLoopDelay at 1 ms resolution), read and reset
// over the engine's IPC channel. A preload rather than engine code so the same probe measures any tree
// (the before-and-after runs); the engine's own metric is `adnet_engine_event_loop_delay_max_seconds`.
import { monitorEventLoopDelay } from 'node:perf_hooks';

const delay = monitorEventLoopDelay({ resolution: 1 });
delay.enable();

export interface LoopDelay {
  type: 'loop-delay';
  maxMs: number;
  p99Ms: number;
  meanMs: number;
  samples: number;
}

const ms = (ns: number) => Math.round(ns / 1e4) / 100;

process.on('message', (m: { type?: string }) => {
  if (m.type !== 'loop-delay') return;
  const reply: LoopDelay = { type: 'loop-delay', maxMs: ms(delay.max), p99Ms: ms(delay.percentile(99)), meanMs: ms(delay.mean), samples: delay.count };
  delay.reset();
  process.send?.(reply);
});
// The listener must not keep an engine alive that is told to stop.
process.channel?.unref();
