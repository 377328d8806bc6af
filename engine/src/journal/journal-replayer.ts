import { readFile, unlink } from 'node:fs/promises';
import { pendingRequests } from '@adnet/schemas/wire/request-journal';
import type { JournaledRequest, JournaledRoute } from '@adnet/schemas/wire/request-journal';
import type { EngineRequest } from '../http/adapt.ts';
import { NotJudgedYet } from './journaled-route.ts';
import type { TimedHandler } from './journaled-route.ts';
import { journalFiles, openForMarks, releaseSlotLock, slotsUnder, takeSlotLock } from './request-journal.ts';
import type { RequestJournal } from './request-journal.ts';
import type { RedisHealth } from './redis-health.ts';

export interface ReplayCounts {
  replayed: number;
  /** Lines that could not be read (a torn last record, garbage): skipped, each logged. */
  skipped: number;
  /** Requests whose route failed while Redis answered: dropped (logged), so one bad record cannot stall the rest. */
  dropped: number;
}

export interface ReplayerOptions {
  journal: RequestJournal;
  health: RedisHealth;
  /** The routes as they run against Redis (never through the journaling wrapper). */
  handlers: Record<JournaledRoute, TimedHandler>;
  /** Requests answered past their deadline whose work still runs. */
  late: Set<Promise<unknown>>;
  log: {
    info(o: object, msg: string): void;
    warn(o: object, msg: string): void;
  };
  /** Clicks are replayed this long after Redis came back, beacons and pixels at once (see `replayFiles`). */
  clickDelayMs: number;
  /** A replayed click whose render is not counted yet is tried again until this long after Redis came back (or after it came). */
  renderGraceMs: number;
  /** Says, in Redis, that journaled requests are on their way (the shared mark, journal-wiring.ts). */
  markPending(): Promise<unknown>;
}

/** The request a journaled one was: as the route read it then. */
function requestOf(r: JournaledRequest): EngineRequest {
  return {
    method: 'GET',
    path: '',
    query: r.query,
    ip: r.ip,
    viaProxy: r.viaProxy,
    headers: { 'user-agent': r.userAgent },
    params: r.params,
    body: Buffer.alloc(0),
    requestId: `replay-${r.id}`,
  };
}

/**
 * Runs journaled requests through their routes once Redis is back, each as of the time it came: judged,
 * charged or refused, recorded and counted by the same code and marks as a live request, so a replay counts
 * nothing twice. Each applied record is marked done in its file before the next, so a replay cut short (Redis
 * away again, the engine stopped) resumes after it. It replays its own slot and, at start, any slot left by an
 * engine that is gone.
 */
export class JournalReplayer {
  private running: Promise<ReplayCounts> | undefined;
  readonly totals: ReplayCounts = { replayed: 0, skipped: 0, dropped: 0 };

  constructor(private readonly o: ReplayerOptions) {}

  /** Replays when there is something to replay, Redis is up and no late request is still running. */
  async maybeReplay(): Promise<void> {
    if (!this.o.health.up || this.o.late.size > 0) return;
    if (!this.o.journal.holdsRecords && !this.o.journal.holdsReplayFiles) return;
    await this.replayOwn();
  }

  /** Replays this engine's slot (joins a replay in progress). */
  replayOwn(): Promise<ReplayCounts> {
    this.running ??= (async () => {
      const files = await this.o.journal.rotate(() => this.o.late.size === 0);
      return this.replayFiles(files);
    })().finally(() => (this.running = undefined));
    return this.running;
  }

  /** Replays the slots under `root` that no live engine holds (an engine that stopped or died left them). */
  async adoptOrphans(root: string): Promise<ReplayCounts> {
    const counts: ReplayCounts = { replayed: 0, skipped: 0, dropped: 0 };
    for (const slot of slotsUnder(root)) {
      const owner = this.o.journal.owner;
      if (slot === this.o.journal.slot || journalFiles(slot).length === 0 || !takeSlotLock(slot, owner)) continue;
      try {
        const c = await this.replayFiles(journalFiles(slot));
        counts.replayed += c.replayed;
        counts.skipped += c.skipped;
        counts.dropped += c.dropped;
      } finally {
        releaseSlotLock(slot, owner);
      }
    }
    return counts;
  }

  /**
   * Beacons, pixels and notices first, clicks after: a widget click counts only after its ad's render beacon,
   * which another engine may hold in its own journal. Every engine sees Redis come back within a probe interval
   * and replays its beacons at once; clicks wait until Redis has been back `clickDelayMs`, so each click is judged
   * once every engine has had that long to count the renders it journaled.
   */
  private async replayFiles(files: string[]): Promise<ReplayCounts> {
    const counts: ReplayCounts = { replayed: 0, skipped: 0, dropped: 0 };
    let deferred = 0;
    const read = await Promise.all(
      files.map(async (path) => ({ path, ...pendingRequests(await readFile(path, 'utf8')) })),
    );
    for (const { path, skipped } of read) {
      for (const s of skipped)
        this.o.log.warn(
          { event: 'journal.skipped', file: path, line: s.line, reason: s.reason },
          'journal line skipped',
        );
      counts.skipped += skipped.length;
    }
    if (read.some((f) => f.pending.length > 0)) await this.o.markPending();
    for (const clicks of [false, true]) {
      if (clicks) {
        // As long after the latest click as after Redis came back: a click that failed late, while this engine's
        // probe saw Redis up, may have a render beacon still waiting in another engine's journal.
        const latest = Math.max(
          this.o.health.upSince,
          ...read.flatMap((f) => f.pending.filter((p) => p.route === 'click').map((p) => p.at)),
        );
        const wait = latest + this.o.clickDelayMs - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      for (const { path, pending } of read) {
        const marks = await openForMarks(path);
        try {
          for (const r of pending.filter((p) => (p.route === 'click') === clicks)) {
            try {
              const deferUnrendered = Date.now() < Math.max(this.o.health.upSince, r.at) + this.o.renderGraceMs;
              await this.o.handlers[r.route](requestOf(r), r.at, r.id, { deferUnrendered });
              counts.replayed++;
            } catch (err) {
              if (err instanceof NotJudgedYet) {
                // Not marked done: the file stays, and the next replay tries this click again.
                deferred++;
                continue;
              }
              // Redis away again: stop here; this record and the rest stay for the next replay.
              if (!(await this.o.health.check())) throw err;
              counts.dropped++;
              this.o.log.warn(
                {
                  event: 'journal.dropped',
                  id: r.id,
                  route: r.route,
                  err: err instanceof Error ? err.message : String(err),
                },
                'journaled request failed',
              );
            }
            await marks.mark(r.id);
          }
        } finally {
          await marks.close();
        }
      }
    }
    // A file with a click deferred stays for the next replay (each second), which skips what is marked done.
    if (deferred > 0) await this.o.markPending();
    if (deferred === 0) for (const { path } of read) await unlink(path);
    this.o.journal.replayFilesChanged();
    if (counts.replayed || counts.skipped || counts.dropped)
      this.o.log.info({ event: 'journal.replayed', ...counts }, 'journal replayed');
    this.totals.replayed += counts.replayed;
    this.totals.skipped += counts.skipped;
    this.totals.dropped += counts.dropped;
    return counts;
  }
}
