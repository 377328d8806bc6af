// Loads the engine's hot-path modules from another checkout of this repository (a git worktree of an
// older commit), so one process can time the code before and after a change over the same inputs.
import type * as ContextFixture from '@adnet/engine/context-fixture';
import type * as EngineIndex from '@adnet/engine/engine-index';
import type * as BidRoute from '@adnet/engine/bid-route';
import type * as WidgetServe from '@adnet/engine/widget-serve-route';
import type * as RequestRate from '@adnet/engine/zone-request-rate';

export interface Tree {
  index: typeof EngineIndex;
  fixture: typeof ContextFixture;
  bid: typeof BidRoute;
  widget: typeof WidgetServe;
  /** Absent in trees from before per-zone request limits. */
  requestRate: typeof RequestRate | undefined;
}

/** The modules of the checkout at `root` (its own dependencies resolve from its own node_modules). */
export async function loadTree(root: string): Promise<Tree> {
  const load = <T>(path: string) => import(`${root}/engine/src/${path}`) as Promise<T>;
  return {
    index: await load<typeof EngineIndex>('index/engine-index.ts'),
    fixture: await contextFixtureOf(root),
    bid: await load<typeof BidRoute>('http/routes/bid.ts'),
    widget: await load<typeof WidgetServe>('http/routes/widget-serve.ts'),
    requestRate: await load<typeof RequestRate>('fraud/zone-request-rate.ts').catch(() => undefined),
  };
}

/** The tree's bid-path context fixture: under engine/test/fixtures/, or in engine/src/ in trees from before it moved. */
export const contextFixtureOf = (root: string): Promise<typeof ContextFixture> =>
  (import(`${root}/engine/test/fixtures/context-fixture.ts`) as Promise<typeof ContextFixture>).catch(
    () => import(`${root}/engine/src/context-fixture.ts`) as Promise<typeof ContextFixture>,
  );

/**
 * Microseconds of the clock the A/B blocks are timed by: wall time, or with AB_CLOCK=cpu this process's CPU
 * time (user + system), which a machine busy with other work disturbs far less (time spent waiting for a
 * core is not counted; time the process itself spends, its GC included, is).
 */
export const clockUs: () => number =
  process.env.AB_CLOCK === 'cpu'
    ? () => {
        const u = process.cpuUsage();
        return u.user + u.system;
      }
    : () => Number(process.hrtime.bigint() / 1000n);

/** The tree's index over `state`, saying how long the build took (lists are compiled in it) and the heap it left. */
export function timedBuild(
  tree: Tree,
  state: Parameters<Tree['index']['buildIndex']>[0],
): ReturnType<Tree['index']['buildIndex']> {
  const heap = process.memoryUsage().heapUsed;
  const t = performance.now();
  const index = tree.index.buildIndex(state, '1-0');
  const first = performance.now() - t;
  // A second build over the same stored objects: what an engine pays per later configuration change.
  const t2 = performance.now();
  tree.index.buildIndex(state, '1-1');
  const again = performance.now() - t2;
  console.log(
    `index build: first ${first.toFixed(0)} ms, again ${again.toFixed(0)} ms, heap +${((process.memoryUsage().heapUsed - heap) / 1e6).toFixed(0)} MB`,
  );
  return index;
}

/**
 * Alternates `rounds` timed blocks of before and after (AB_ROUNDS, default 6), after two warm-up blocks
 * each; prints one line per round, then the medians and the fastest blocks, which a busy machine
 * disturbs least.
 */
export function alternate(
  before: () => { us: number; ok: number },
  after: () => { us: number; ok: number },
  rounds = Number(process.env.AB_ROUNDS ?? 6),
): void {
  for (let w = 0; w < 2; w++) {
    before();
    after();
  }
  const a: number[] = [];
  const b: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const x = before();
    const y = after();
    a.push(x.us);
    b.push(y.us);
    console.log(
      `round ${round}: before ${x.us.toFixed(2)} us (${x.ok} answered)  after ${y.us.toFixed(2)} us (${y.ok} answered)  x${(y.us / x.us).toFixed(2)}`,
    );
  }
  const median = (v: number[]) => [...v].sort((p, q) => p - q)[Math.floor(v.length / 2)] as number;
  const ratios = a.map((x, i) => (b[i] as number) / x);
  console.log(
    `median: before ${median(a).toFixed(2)} us  after ${median(b).toFixed(2)} us  x${median(ratios).toFixed(2)} (median of the rounds' ratios)` +
      `  fastest: before ${Math.min(...a).toFixed(2)} us  after ${Math.min(...b).toFixed(2)} us  x${(Math.min(...b) / Math.min(...a)).toFixed(2)}`,
  );
}
