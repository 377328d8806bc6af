import type { Counters } from '../auction/ports.ts';
import { decodeTicket } from '../tracking/signed-token.ts';

export type HbWon = 'counted' | 'repeated' | 'unknown';

/**
 * Prebid's win notice for our bid (`nurl`, sent by the adapter's onBidWon): informational only. It charges nothing
 * (the render beacon does) and is counted once per ad whoever sends it how often (a once-only mark every engine
 * shares); a ticket that is not one of our header bidding ads is `unknown`. When the mark cannot be read (Redis away)
 * it is not counted (nor waited for past a second): a lost notice costs a metric, never money.
 */
export async function hbWinNotice(
  p: { secret: string; counters: Pick<Counters, 'countOnce'> },
  token: string,
  now: number,
): Promise<HbWon> {
  const t = decodeTicket(p.secret, token);
  if (!t || t.partnerId !== 0 || (t.surface !== 'widget' && t.surface !== 'vast')) return 'unknown';
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), WAIT_MS)));
  try {
    const first = await Promise.race([p.counters.countOnce('win', `hb:${t.bidId}`, now), late]);
    return first === true ? 'counted' : 'repeated';
  } catch {
    return 'repeated';
  } finally {
    clearTimeout(timer);
  }
}

/** The page's pixel is answered within this, whatever Redis does. */
const WAIT_MS = 1_000;
