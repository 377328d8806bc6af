import { LRUCache } from 'lru-cache';
import { createHash } from 'node:crypto';
import type { FrequencyCaps, Viewer } from '../auction/ports.ts';
import type { Candidate } from '../index/candidate.ts';
import type { CapCount } from './user-counts.ts';
import { UserCounts } from './user-counts.ts';

/** Where every engine's counts meet (Redis: redis-frequency-store.ts). */
export interface FrequencyStore {
  /** Every campaign's counts of one user, `own` being this engine's ads. */
  read(userKey: string): Promise<Map<number, CapCount>>;
  /** Adds one counted ad, served by `servedBy`, to the user's period of the campaign (a new period starts at the first ad). */
  count(userKey: string, campaignId: number, servedBy: string, now: number, periodMs: number): Promise<void>;
}

export interface FrequencyCapOptions {
  store: FrequencyStore;
  /** Users whose copies one engine keeps, least recently seen dropped first (room for them is taken at once). */
  maxUsers?: number;
  onError?: (err: unknown) => void;
  /** The visitors' audience memberships (audience-members.ts); absent: no one is a member of any. */
  members?: { memberOfAny(id: string, audiences: readonly number[], now: number): boolean };
}

/** A user id as tickets and the store name it: 96 bits of its SHA-256, so ids stay out of URLs and keys stay short. */
export const userKeyOf = (id: string): string => createHash('sha256').update(id).digest('base64url').slice(0, 16);

/** One user as this engine holds it: its key, hashed once, and its counts. */
interface Held {
  readonly key: string;
  readonly counts: UserCounts;
}

/**
 * Frequency caps without a Redis round trip per request. Each engine keeps a copy of each user's
 * counts, read from the store in the background (at the user's first request, when older than a
 * second, and while one of its ads is not yet seen counted), plus the ads it served itself since;
 * the hot path decides from memory only. Counted ads go to the store as they are counted. The error
 * bound is in docs/delivery.md#frequency-caps and user-counts.ts.
 */
export class FrequencyCapCache implements FrequencyCaps {
  /** By the request's id, the least recently seen dropped first; and by key, for counted ads (tickets carry only the key). */
  private readonly users: LRUCache<string, Held>;
  private readonly byKey = new Map<string, Held>();

  constructor(private readonly o: FrequencyCapOptions) {
    this.users = new LRUCache<string, Held>({
      max: o.maxUsers ?? 100_000,
      dispose: (held) => this.byKey.delete(held.key),
    });
  }

  viewer(userId: string | undefined, now: number, cookieId?: string): Viewer | undefined {
    return userId === undefined ? undefined : new RequestViewer(this, userId, now, cookieId);
  }

  /** Whether either id of the visitor is a member of one of `audiences`, from memory. */
  inAudience(id: string, cookieId: string | undefined, audiences: readonly number[], now: number): boolean {
    const m = this.o.members;
    if (!m) return false;
    return m.memberOfAny(id, audiences, now) || (cookieId !== undefined && m.memberOfAny(cookieId, audiences, now));
  }

  counted(ad: { user: string; campaignId: number; periodHours: number; servedBy: string }, now: number): void {
    this.o.store
      .count(ad.user, ad.campaignId, ad.servedBy, now, ad.periodHours * 3_600_000)
      .catch((err: unknown) => this.o.onError?.(err));
    // Sent after the count on the same connection, so the read includes it.
    const held = this.byKey.get(ad.user);
    if (held?.counts.reading) held.counts.readAgain = true;
    else if (held) this.read(held, now);
  }

  /** The user's counts as this engine knows them; a stale copy is read again in the background. */
  user(id: string, now: number): Held {
    let held = this.users.get(id);
    if (!held) {
      // Hashed once per user this engine holds, not per request.
      held = { key: userKeyOf(id), counts: new UserCounts() };
      this.users.set(id, held);
      this.byKey.set(held.key, held);
    }
    if (held.counts.wantsRead(now)) this.read(held, now);
    return held;
  }

  /** Users whose copies this engine holds. */
  get size(): number {
    return this.users.size;
  }

  private read(held: Held, now: number): void {
    const u = held.counts;
    u.readSent(now);
    this.o.store.read(held.key).then(
      (counts) => {
        u.applyRead(counts);
        if (u.readAgain) this.read(held, Date.now());
      },
      (err: unknown) => {
        u.readFailed();
        this.o.onError?.(err);
      },
    );
  }
}

/** One request's user: looked up (and, the first time, hashed) only when a capped campaign, or one naming audiences, is a candidate. */
class RequestViewer implements Viewer {
  private held: Held | undefined;

  constructor(
    private readonly caps: FrequencyCapCache,
    private readonly id: string,
    private readonly now: number,
    private readonly cookieId: string | undefined,
  ) {}

  get key(): string {
    return this.user().key;
  }

  capped(c: Candidate): boolean {
    return c.cap !== null && this.user().counts.capped(c.campaignId, c.cap.impressions, this.now);
  }

  served(c: Candidate): void {
    if (c.cap) this.user().counts.served(c.campaignId, this.now);
  }

  inAudience(audiences: readonly number[]): boolean {
    return this.caps.inAudience(this.id, this.cookieId, audiences, this.now);
  }

  private user(): Held {
    return (this.held ??= this.caps.user(this.id, this.now));
  }
}
