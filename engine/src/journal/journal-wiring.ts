import { Periodic } from '@adnet/runtime/periodic';
import type { Config } from '@adnet/schemas/config';
import { JOURNAL_PENDING_KEY } from '@adnet/schemas/wire/click-record';
import type { JournaledRoute } from '@adnet/schemas/wire/request-journal';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import type { EngineContext } from '../context.ts';
import type { RouteHandler } from '../http/adapt.ts';
import { beaconOffline, beaconRoute } from '../http/routes/beacon.ts';
import { clickOffline, clickRoute } from '../http/routes/click.ts';
import { winOffline, winRoute } from '../http/routes/win.ts';
import {
  impTrackerOffline,
  impTrackerRoute,
  vastTrackingOffline,
  vastTrackingRoute,
} from '../http/routes/vast-tracking.ts';
import type { EngineMetrics } from '../observability/engine-metrics.ts';
import { JournalReplayer } from './journal-replayer.ts';
import { journaled } from './journaled-route.ts';
import type { JournalGate, OfflineAnswer, TimedHandler } from './journaled-route.ts';
import { RedisHealth } from './redis-health.ts';
import { RequestJournal } from './request-journal.ts';

/** How long after Redis came back journaled clicks are replayed: every engine's journaled renders are counted by then. */
const CLICK_REPLAY_DELAY_MS = 3_000;
/** How long a replayed click may wait for its ad's render to be counted before it is judged `not_rendered`. */
const RENDER_GRACE_MS = 60_000;
/**
 * How long after this engine saw Redis come back a click whose render is not counted yet is left to
 * the replay even without the shared mark: another engine may hold the render beacon and not have seen Redis
 * come back yet, so not have written the mark.
 */
const JUST_BACK_MS = 10_000;
/** How long the mark that journaled requests are on their way lasts unless renewed: past the longest a replayed click can wait. */
const PENDING_MARK_MS = CLICK_REPLAY_DELAY_MS + RENDER_GRACE_MS + 30_000;

export interface EngineJournal {
  /** The tracking routes, each answering without Redis when it is away or late (journaled-route.ts). */
  routes: Record<JournaledRoute, RouteHandler>;
  health: RedisHealth;
  journal: RequestJournal;
  replayer: JournalReplayer;
  /** Nothing waits for replay: no journaled request, no late request still running. */
  settled(): boolean;
  /** Stops probing and replaying, and writes what the journal holds. */
  stop(): Promise<void>;
}

/**
 * The engine's answer to Redis going away: a health probe, the journal on local disk, the tracking routes
 * wrapped so they answer and journal rather than wait, and the replayer that runs the journal through the
 * routes once Redis answers again (at start it also takes over slots left by engines that are gone).
 */
export async function startJournal(o: {
  config: Config;
  redisUrl: string;
  /** The engine's connection to the shared Redis, for the mark that journaled requests are on their way. */
  redis: Redis;
  ctx: EngineContext;
  log: Logger;
  metrics: EngineMetrics;
  report: (what: string, err: unknown) => void;
}): Promise<EngineJournal> {
  const { config, ctx, log } = o;
  const health = new RedisHealth({
    url: o.redisUrl,
    intervalMs: 200,
    // Away means a PING got no answer in this long; a request that merely waits past its deadline is answered and journaled as late.
    timeoutMs: Math.max(4 * config.redisDeadlineMs, 200),
    onChange: (up, why) => {
      log.warn(
        { event: up ? 'redis.back' : 'redis.away', why },
        up ? 'Redis answers again: replaying the journal' : 'Redis away: tracking requests are journaled',
      );
      // At once, not when the replay starts (up to a second later): other engines' clicks and the admin's
      // postbacks then know that requests of the outage are on their way.
      if (up && holdsOwn()) void markPending().catch((err: unknown) => o.report('journal', err));
    },
  });
  const journal = await RequestJournal.open({
    root: config.journalDir,
    maxBytes: config.journalMaxBytes,
    flushMs: config.journalFlushMs,
    onError: (err) => o.report('journal', err),
  });
  const late = new Set<Promise<unknown>>();
  const markPending = () => o.redis.set(JOURNAL_PENDING_KEY, journal.owner, 'PX', PENDING_MARK_MS);
  /** This engine's journal holds records, or files wait for (or are in) replay. */
  const holdsOwn = () => journal.holdsRecords || journal.holdsReplayFiles;
  const gate: JournalGate = {
    health,
    journal,
    deadlineMs: config.redisDeadlineMs,
    late,
    onJournaled: (route, why) => {
      o.metrics.journaled(route, why);
      // Said now, while Redis still answers (slow, not away): a request answered late or left to the replay is
      // written only when its work ends or by the replay, and a postback or a click may come first.
      if (why === 'late' || why === 'deferred') void markPending().catch((err: unknown) => o.report('journal', err));
    },
    onError: o.report,
    // Asked only by a click whose render is not counted yet, so the shared mark's read is off the common path.
    pending: async () =>
      holdsOwn() || Date.now() - health.backAt < JUST_BACK_MS || (await o.redis.exists(JOURNAL_PENDING_KEY)) === 1,
  };
  const handlers: Record<JournaledRoute, TimedHandler> = {
    click: clickRoute(ctx),
    beacon: beaconRoute(ctx),
    imptracker: impTrackerRoute(ctx),
    vast: vastTrackingRoute(ctx),
    win: winRoute(ctx),
    bill: winRoute(ctx, 'bill'),
  };
  const offline: Record<JournaledRoute, OfflineAnswer> = {
    click: clickOffline(ctx),
    beacon: beaconOffline(ctx),
    imptracker: impTrackerOffline(ctx),
    vast: vastTrackingOffline(ctx),
    win: winOffline(ctx),
    bill: winOffline(ctx, 'bill'),
  };
  const routes = Object.fromEntries(
    (Object.keys(handlers) as JournaledRoute[]).map((r) => [r, journaled(gate, r, handlers[r], offline[r])]),
  ) as Record<JournaledRoute, RouteHandler>;
  const replayer = new JournalReplayer({
    journal,
    health,
    handlers,
    late,
    log,
    clickDelayMs: CLICK_REPLAY_DELAY_MS,
    renderGraceMs: RENDER_GRACE_MS,
    markPending,
  });
  const replays = new Periodic({
    intervalMs: 1_000,
    pass: () => replayer.maybeReplay(),
    onError: (err) => o.report('journal-replay', err),
  });
  health.start();
  // What this slot and the slots of engines that are gone hold from before: replayed beside new work (the marks
  // keep the two apart), without holding the engine's start.
  const leftovers = (async () => {
    if (!(await health.check())) return;
    await replayer.replayOwn();
    await replayer.adoptOrphans(config.journalDir);
  })().catch((err: unknown) => o.report('journal-replay', err));
  replays.start();
  return {
    routes,
    health,
    journal,
    replayer,
    settled: () => late.size === 0 && !journal.holdsRecords && !journal.holdsReplayFiles,
    async stop() {
      await leftovers;
      await replays.stop();
      health.stop();
      await journal.close();
    },
  };
}
