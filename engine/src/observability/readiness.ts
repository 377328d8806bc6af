import { clientState, seconds } from '@adnet/runtime/probe';
import type { Probe } from '@adnet/runtime/probe';
import { allReady } from '@adnet/schemas/readiness';
import type { DependencyCheck } from '@adnet/schemas/readiness';
import type { EventBatcher } from '../events/event-batcher.ts';
import type { ConfigMirror } from '../sync/config-mirror.ts';

/** The mirror catches up at least once a second (its poll): this long without one, it is behind. */
export const MIRROR_BEHIND_MS = 10_000;
/** A write to the event stream out this long: Redis is not taking events (they are held, up to EVENT_BUFFER_MAX). */
export const EVENT_WRITE_LATE_MS = 2_000;

export interface EngineReadinessDeps {
  redisStatus: () => string;
  redisProbe: Probe<unknown>;
  mirror: Pick<ConfigMirror, 'index' | 'caughtUpAtMs'>;
  events: Pick<EventBatcher, 'backlog' | 'inWrite' | 'dropped' | 'failingSinceMs' | 'writeStartedMs'>;
  /** The tracking requests answered while Redis was away (journal/journal-wiring.ts). */
  journal?: { settled(): boolean };
}

/**
 * What an engine's readiness reports: Redis (down, or hung while its connection stays open), the index (down
 * until loaded), the config mirror (behind when its catch-ups stall), the event writer (behind while writes
 * fail or hang; the engine keeps bidding and holds the events) and the request journal (behind while tracking
 * requests wait to be replayed). Plain reads of what the engine already knows:
 * nothing here waits on Redis, and nothing runs on the bid path.
 */
export function engineChecks(d: EngineReadinessDeps, nowMs = Date.now()): DependencyCheck[] {
  const index = d.mirror.index;
  const sinceCatchUp = nowMs - d.mirror.caughtUpAtMs;
  const held = `${d.events.inWrite} events in the write, ${d.events.backlog} more held, ${d.events.dropped} dropped`;
  const writeOutMs = d.events.writeStartedMs === undefined ? 0 : nowMs - d.events.writeStartedMs;
  const writer: DependencyCheck =
    d.events.failingSinceMs !== undefined
      ? {
          name: 'event-writer',
          state: 'behind',
          detail: `writes to the event stream failing for ${seconds(nowMs - d.events.failingSinceMs)}; ${held}`,
        }
      : writeOutMs > EVENT_WRITE_LATE_MS
        ? {
            name: 'event-writer',
            state: 'behind',
            detail: `a write to the event stream unanswered for ${seconds(writeOutMs)}; ${held}`,
          }
        : { name: 'event-writer', state: 'ok', detail: held };
  return [
    { name: 'redis', ...clientState(d.redisStatus(), d.redisProbe.reading(nowMs), 'PING', nowMs) },
    index
      ? { name: 'index', state: 'ok', detail: `change-log position ${index.seq}` }
      : { name: 'index', state: 'down', detail: 'not loaded yet' },
    index && sinceCatchUp > MIRROR_BEHIND_MS
      ? {
          name: 'config-mirror',
          state: 'behind',
          detail: `last caught up with the change log ${seconds(sinceCatchUp)} ago`,
        }
      : { name: 'config-mirror', state: 'ok', detail: `caught up ${seconds(Math.max(0, sinceCatchUp))} ago` },
    writer,
    ...(d.journal
      ? [
          d.journal.settled()
            ? { name: 'journal', state: 'ok' as const, detail: 'nothing waits for replay' }
            : {
                name: 'journal',
                state: 'behind' as const,
                detail: 'tracking requests answered while Redis was away or late wait to be replayed',
              },
        ]
      : []),
  ];
}

export { allReady };
