import { LRUCache } from 'lru-cache';
import type { AudienceStore, Membership } from '../auction/ports.ts';
import { userKeyOf } from './frequency-caps.ts';

// Audience membership without a Redis round trip on the serving path (docs/audiences.md): each engine keeps a
// copy of the memberships of the visitors it sees, read in the background, and the serving path answers from it.

export interface AudienceMembersOptions {
  store: AudienceStore;
  /** Visitors whose memberships one engine holds, the least recently seen dropped first. */
  maxVisitors?: number;
  /** A visitor's copy older than this is read again when it next comes. */
  refreshMs?: number;
  onError?: (err: unknown) => void;
}

export const AUDIENCE_MAX_VISITORS = 100_000;
export const AUDIENCE_REFRESH_MS = 1_000;

/** One visitor as this engine holds it. */
class Held {
  /** Audience id to when the membership ends; empty until the first read answers. */
  ends: ReadonlyMap<number, number> = new Map();
  readSentAt = -Infinity;
  reading = false;
  /** This engine added a membership while a read was on its way: the read may predate it, read once more. */
  readAgain = false;
  constructor(readonly key: string) {}
}

export class AudienceMembers {
  private readonly visitors: LRUCache<string, Held>;
  private readonly byKey = new Map<string, Held>();
  private readonly refreshMs: number;

  constructor(private readonly o: AudienceMembersOptions) {
    this.refreshMs = o.refreshMs ?? AUDIENCE_REFRESH_MS;
    this.visitors = new LRUCache<string, Held>({
      max: o.maxVisitors ?? AUDIENCE_MAX_VISITORS,
      dispose: (held) => this.byKey.delete(held.key),
    });
  }

  /**
   * Whether the visitor (its id as the request names it) is a member of one of `audiences` at `now`, as this
   * engine knows it; never waits. A visitor this engine has not seen yet is read in the background and is
   * no member until the read answers; a copy older than the refresh time is read again the same way.
   */
  memberOfAny(id: string, audiences: readonly number[], now: number): boolean {
    let held = this.visitors.get(id);
    if (!held) {
      held = new Held(userKeyOf(id));
      this.visitors.set(id, held);
      this.byKey.set(held.key, held);
    }
    if (!held.reading && now - held.readSentAt >= this.refreshMs) this.read(held, now);
    const ends = held.ends;
    if (ends.size === 0) return false;
    for (const a of audiences) if ((ends.get(a) ?? 0) > now) return true;
    return false;
  }

  /** Adds memberships of the visitor its key names (tickets and click records carry only the key), without waiting. */
  add(userKey: string, memberships: readonly Membership[], now: number): void {
    if (memberships.length === 0) return;
    this.o.store.add(userKey, memberships, now).catch((err: unknown) => this.o.onError?.(err));
    // This engine's copy learns at once; other engines at their next read.
    const held = this.byKey.get(userKey);
    if (!held) return;
    const next = new Map(held.ends);
    for (const m of memberships) if ((next.get(m.audienceId) ?? 0) < m.ends) next.set(m.audienceId, m.ends);
    held.ends = next;
    if (held.reading) held.readAgain = true;
  }

  /** Visitors whose memberships this engine holds. */
  get size(): number {
    return this.visitors.size;
  }

  private read(held: Held, now: number): void {
    held.reading = true;
    held.readAgain = false;
    held.readSentAt = now;
    this.o.store.read(held.key).then(
      (ends) => {
        held.reading = false;
        if (held.readAgain) this.read(held, Date.now());
        else held.ends = ends;
      },
      (err: unknown) => {
        held.reading = false;
        this.o.onError?.(err);
      },
    );
  }
}
