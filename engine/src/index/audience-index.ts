import type { StoredAudience } from '@adnet/schemas/audiences';

/** One audience as the events that make members read it: its id and how long a membership lasts. */
export interface AudienceRef {
  readonly id: number;
  readonly lifetimeMs: number;
}

/** The campaign events an engine records members from; `converted` is recorded by the admin (its postback). */
export type WatchedEvent = 'viewed' | 'clicked';

/**
 * What the engine needs of the mirrored audiences: which audiences a campaign's counted impressions and valid
 * clicks add members to, and the pixel audiences by token. Rebuilt whole when an audience changes (they are
 * created and deleted, never edited, and an advertiser holds at most a few hundred).
 */
export interface AudienceIndex {
  readonly viewed: ReadonlyMap<number, readonly AudienceRef[]>;
  readonly clicked: ReadonlyMap<number, readonly AudienceRef[]>;
  /** Campaigns whose ads name their viewer in the ticket, so that whichever engine counts the event knows whom. */
  readonly watched: ReadonlySet<number>;
  readonly pixels: ReadonlyMap<string, AudienceRef>;
}

export const NO_AUDIENCES: AudienceIndex = {
  viewed: new Map(),
  clicked: new Map(),
  watched: new Set(),
  pixels: new Map(),
};

const DAY_MS = 86_400_000;

export function audienceIndex(stored: ReadonlyMap<number, unknown> | undefined): AudienceIndex {
  if (!stored || stored.size === 0) return NO_AUDIENCES;
  const viewed = new Map<number, AudienceRef[]>();
  const clicked = new Map<number, AudienceRef[]>();
  const watched = new Set<number>();
  const pixels = new Map<string, AudienceRef>();
  for (const a of stored.values() as Iterable<StoredAudience>) {
    const ref = { id: a.id, lifetimeMs: a.lifetime_days * DAY_MS };
    if (a.source === 'pixel') {
      if (a.pixel_token) pixels.set(a.pixel_token, ref);
      continue;
    }
    // Converted members come from the click record, which carries the viewer only for watched campaigns.
    for (const c of a.campaign_ids) watched.add(c);
    const by = a.source === 'viewed' ? viewed : a.source === 'clicked' ? clicked : undefined;
    if (!by) continue;
    for (const c of a.campaign_ids) {
      const list = by.get(c);
      if (list) list.push(ref);
      else by.set(c, [ref]);
    }
  }
  return { viewed, clicked, watched, pixels };
}

/** The memberships an event at `now` makes in `refs`' audiences, each for its lifetime. */
export const membershipsOf = (refs: readonly AudienceRef[] | undefined, now: number) =>
  refs === undefined ? [] : refs.map((r) => ({ audienceId: r.id, ends: now + r.lifetimeMs }));
