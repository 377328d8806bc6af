import type { EngineReply, EngineRequest } from './adapt.ts';

// How a tracking route runs under the request journal (journal/journaled-route.ts): the journal wraps the
// routes, so the routes know only these shapes of it, never the journal itself.

/**
 * A tracking route's work: `now` is when the request came and `attempt` the engine's name for it (a replay
 * passes the journaled ones), which its once-only marks carry so that running it again counts it once.
 */
export type TimedHandler = (
  req: EngineRequest,
  now: number,
  attempt?: string,
  run?: RunOptions,
) => Promise<EngineReply>;

export interface RunOptions {
  /**
   * Replay: a click whose ad's render is not counted yet throws `NotJudgedYet` instead of being recorded
   * `not_rendered`, since its render beacon may still wait in another engine's journal. The replayer tries it
   * again later, within a bound.
   */
  deferUnrendered?: boolean;
  /**
   * Live: set when the caller was answered past the deadline. A click that has not yet been judged then throws
   * `NotJudgedYet` before it writes anything, and is left to the replay: judged after an outage by what it read
   * then, it would race the render beacons other engines are finishing late.
   */
  answered?: { late: boolean };
  /**
   * Live: whether some journal may hold requests not yet replayed (this engine's, or another's by the shared
   * mark). A click whose ad's render is not counted yet throws `NotJudgedYet` when it may, and is journaled for
   * the replay to judge: the render beacon may be among them, answered while Redis was away.
   */
  journalPending?: () => Promise<boolean>;
}

/** Thrown by a click left to the replay before anything of it was recorded (see `RunOptions`). */
export class NotJudgedYet extends Error {
  constructor(why: string) {
    super(why);
  }
}

/**
 * What the route answers without Redis: for a request whose signature checks out, the answer it would give
 * (the redirect to the landing page, the pixel, the win notice's acknowledgement) and `journal: true`; for
 * anything else its refusal, journaled never.
 */
export type OfflineAnswer = (req: EngineRequest) => { reply: EngineReply; journal: boolean };
