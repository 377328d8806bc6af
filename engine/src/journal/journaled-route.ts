import type { JournaledRoute } from '@adnet/schemas/wire/request-journal';
import type { EngineReply, EngineRequest } from '../http/adapt.ts';
import { NotJudgedYet } from '../http/tracking-run.ts';
import type { OfflineAnswer, TimedHandler } from '../http/tracking-run.ts';
import type { RequestJournal } from './request-journal.ts';
import type { RedisHealth } from './redis-health.ts';

// What the tracking routes know of the journal (http/tracking-run.ts): here again for the journal's own modules.
export { NotJudgedYet } from '../http/tracking-run.ts';
export type { OfflineAnswer, RunOptions, TimedHandler } from '../http/tracking-run.ts';

/** Why a request was journaled: Redis away, answered past the deadline, its work failed, left to the replay to judge, or (not kept) the journal full. */
export type JournaledWhy = 'away' | 'late' | 'failed' | 'deferred' | 'full';

export interface JournalGate {
  health: RedisHealth;
  journal: RequestJournal;
  /** How long a request waits on Redis before it is answered without it. */
  deadlineMs: number;
  /** Requests answered past their deadline whose work still runs: a replay waits for them to end. */
  late: Set<Promise<unknown>>;
  onJournaled(route: JournaledRoute, why: JournaledWhy): void;
  /** Whether some engine's journal may hold requests not yet replayed (`RunOptions.journalPending`). */
  pending(): Promise<boolean>;
  onError(what: string, err: unknown): void;
}

/**
 * A tracking route that never strands its caller on Redis. While Redis is up the route runs as it always did,
 * within `deadlineMs`; past it, or when it fails, the caller gets the offline answer and the request is
 * journaled (a late one is marked done if its work still completes, so no replay runs it twice). While Redis is
 * away (its health probe got no answer in time, or a command failed) the route does not touch it: it answers
 * offline and journals at once.
 */
export function journaled(gate: JournalGate, route: JournaledRoute, handler: TimedHandler, offline: OfflineAnswer) {
  const journalOf = (req: EngineRequest, at: number, id: string): boolean =>
    gate.journal.append({
      id,
      route,
      at,
      params: [...req.params],
      query: req.query,
      ip: req.ip,
      viaProxy: req.viaProxy,
      userAgent: req.headers['user-agent'] ?? '',
    });

  const answerOffline = (
    req: EngineRequest,
    at: number,
    id: string,
    why: 'away' | 'failed' | 'deferred',
  ): EngineReply => {
    const answer = offline(req);
    if (answer.journal) gate.onJournaled(route, journalOf(req, at, id) ? why : 'full');
    return answer.reply;
  };

  return (req: EngineRequest): Promise<EngineReply> | EngineReply => {
    const now = Date.now();
    const attempt = gate.journal.nextId();
    if (!gate.health.up) return answerOffline(req, now, attempt, 'away');
    const answered = { late: false };
    const work = handler(req, now, attempt, { answered, journalPending: () => gate.pending() });
    return new Promise<EngineReply>((resolve) => {
      const timer = setTimeout(() => {
        answered.late = true;
        // Not a verdict on Redis (a burst can queue a request this long): only the health probe or a failed
        // command sends the routes to the journal alone. This request's work goes on and marks it done.
        const answer = offline(req);
        resolve(answer.reply);
        if (!answer.journal) return;
        const kept = journalOf(req, now, attempt);
        gate.onJournaled(route, kept ? 'late' : 'full');
        const settled = work.then(
          () => kept && gate.journal.done(attempt),
          (err: unknown) => {
            // Left to the replay before it recorded anything: no done mark, nothing wrong.
            if (err instanceof NotJudgedYet) return;
            gate.onError(`journal.${route}.late`, err);
            gate.health.suspect(`${route} failed late: ${err instanceof Error ? err.message : String(err)}`);
          },
        );
        gate.late.add(settled);
        void settled.finally(() => gate.late.delete(settled));
      }, gate.deadlineMs);
      work.then(
        (reply) => {
          if (answered.late) return;
          clearTimeout(timer);
          resolve(reply);
        },
        (err: unknown) => {
          if (answered.late) return;
          clearTimeout(timer);
          // Left to the replay before anything of it was recorded: not a failure of Redis.
          if (err instanceof NotJudgedYet) return resolve(answerOffline(req, now, attempt, 'deferred'));
          gate.onError(`journal.${route}`, err);
          gate.health.suspect(`${route} failed: ${err instanceof Error ? err.message : String(err)}`);
          resolve(answerOffline(req, now, attempt, 'failed'));
        },
      );
    });
  };
}
