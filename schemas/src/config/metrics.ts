import { z } from 'zod';

/** The operators' address (`/metrics`, `/healthz`, `/readyz`) of every process. */
export const metricsSlice = z
  .object({
    /** The operators' address: `/metrics`, `/healthz` and `/readyz`, away from the public port. */
    METRICS_HOST: z.string().min(1).default('127.0.0.1'),
    /**
     * Port of the operators' address. `pnpm start` gives the admin this port and engine i `METRICS_PORT + 1 + i`; 0:
     * any free port (logged as `metrics.listening` / `engine.listening`).
     */
    METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
    /**
     * How often, in ms, an engine's event-loop delay metric (`adnet_engine_event_loop_delay_seconds`) samples the loop.
     * Each sample wakes an idle loop: an idle engine took 25-29 ms of CPU a second at 1, 9-13 at 5 and 6.5-7.5 at 10
     * (under load the loop is awake anyway: no difference at 4 000 bids/s). Every stall longer than the interval is
     * seen (a sample falls due inside it), shorter by the interval at worst; 5 resolves the 5 ms the engine keeps
     * its stalls under.
     */
    METRICS_LOOP_DELAY_RESOLUTION_MS: z.coerce.number().int().min(1).max(1_000).default(5),
  })
  .transform((e) => ({
    host: e.METRICS_HOST,
    port: e.METRICS_PORT,
    loopDelayResolutionMs: e.METRICS_LOOP_DELAY_RESOLUTION_MS,
  }));
export type MetricsConfig = z.output<typeof metricsSlice>;
