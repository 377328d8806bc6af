import { BID_HOLD_MS } from '../auction/ticket-age.ts';

// What one engine knows of one user's ads of capped campaigns: plain rules over plain data, so the
// error bound (docs/delivery.md#frequency-caps) can be tested without Redis.

/** An ad this engine served and has not seen counted within this time is taken as lost (a lost bid, an ad never rendered), as budget holds are. */
export const UNCOUNTED_MS = BID_HOLD_MS;
/**
 * Ads of one campaign this engine may have served one user without having read them back counted.
 * The bound rests on it: with one, every earlier ad of an engine is in the shared count the engine
 * last read, so E engines pass a cap of N by at most E - 1.
 */
export const MAX_UNCONFIRMED = 1;
/** A user's copy older than this is read again when the user next comes. */
export const REFRESH_MS = 1_000;

/** One campaign's counts for one user as the shared store held them: every engine's ads in the period, this engine's, and when the period ends (ms). */
export interface CapCount {
  total: number;
  own: number;
  ends: number;
}

class CampaignCounts implements CapCount {
  total = 0;
  own = 0;
  ends = 0;
  /** When this engine served the ads no read has yet shown counted, oldest first. */
  readonly unconfirmed: number[] = [];
}

const NONE: CapCount = { total: 0, own: 0, ends: 0 };

export class UserCounts {
  private readonly campaigns = new Map<number, CampaignCounts>();
  /** When the last read was sent, and whether it is still on its way. */
  private readSentAt = -Infinity;
  reading = false;
  /** This engine counted one of the user's ads while a read was on its way: read once more after it. */
  readAgain = false;

  /** Whether to read the user's counts now: never read, stale, or waiting to see one of this engine's ads counted. */
  wantsRead(now: number): boolean {
    if (this.reading) return false;
    if (now - this.readSentAt >= REFRESH_MS) return true;
    for (const c of this.campaigns.values()) if (c.unconfirmed.length > 0) return true;
    return false;
  }

  readSent(now: number): void {
    this.reading = true;
    this.readAgain = false;
    this.readSentAt = now;
  }

  readFailed(): void {
    this.reading = false;
  }

  /**
   * Applies what the store held when the read was sent. This engine's own count grew by the ads of
   * its that were counted since the last read: they leave the unconfirmed list, oldest first.
   */
  applyRead(read: ReadonlyMap<number, CapCount>): void {
    this.reading = false;
    for (const [id, c] of this.campaigns) merge(c, read.get(id) ?? NONE);
    for (const [id, r] of read) if (!this.campaigns.has(id)) merge(this.campaign(id), r);
  }

  /** Whether serving the campaign now might take the user past `impressions`: counted in the period, plus this engine's unconfirmed ads. */
  capped(campaignId: number, impressions: number, now: number): boolean {
    const c = this.campaigns.get(campaignId);
    if (!c) return false;
    const u = c.unconfirmed;
    let lost = 0;
    while (lost < u.length && (u[lost] as number) <= now - UNCOUNTED_MS) lost++;
    if (lost) u.splice(0, lost);
    if (u.length >= MAX_UNCONFIRMED) return true;
    return (c.ends > now ? c.total : 0) + u.length >= impressions;
  }

  served(campaignId: number, now: number): void {
    this.campaign(campaignId).unconfirmed.push(now);
  }

  private campaign(id: number): CampaignCounts {
    let c = this.campaigns.get(id);
    if (!c) this.campaigns.set(id, (c = new CampaignCounts()));
    return c;
  }
}

function merge(c: CampaignCounts, r: CapCount): void {
  // A new period: every own ad it holds was counted since the last read.
  const confirmed = r.ends === c.ends ? r.own - c.own : r.own;
  if (confirmed > 0) c.unconfirmed.splice(0, confirmed);
  c.total = r.total;
  c.own = r.own;
  c.ends = r.ends;
}
