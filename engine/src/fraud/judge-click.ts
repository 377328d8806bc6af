import type { BidTicket } from '../tracking/signed-token.ts';
import { ipPrefixOf, uaHashOf } from '../tracking/viewer.ts';
import { clickVerdict, parseClickSignals } from './click-rules.ts';
import { serverClickVerdict } from './server-click-rules.ts';

export interface ClickFacts {
  /** What the ticket of the clicked ad says: ours (BidTicket), or a demand partner's (routes/demand.ts). */
  ticket: Pick<BidTicket, 'surface' | 'issuedAt' | 'test' | 'ipPrefix' | 'uaHash'> &
    Partial<Pick<BidTicket, 'integration' | 'format'>>;
  /** The click's query (the widget's signals) and its request. */
  query: string;
  userAgent: string;
  ip: string;
  now: number;
  /** When the ad's impression was recorded: the widget's render beacon, a pixel, a win notice, a push delivery. */
  impressionAt: number | undefined;
}

/**
 * The fraud verdict of a click, by the surface its ad was served on, and the fingerprint its flood
 * limit counts by. Widget clicks carry the widget's measurements and must follow the counted render
 * beacon of their ticket; on VAST, OpenRTB and push ads nothing measured the click, so it is judged on
 * server-side facts: it must follow a recorded impression of its ticket by a moment, from the network
 * and browser the ad was served to. So is a native ad answered to Prebid.js: Prebid draws it with the
 * publisher's own template, so no script of ours is there to measure the click.
 */
export function judgeClick(f: ClickFacts): { reason: string | undefined; fingerprint: string } {
  const { ticket } = f;
  const ageMs = f.now - ticket.issuedAt * 1000;
  // A click on an ad answered to an OpenRTB test request is recorded, never billed.
  if (ticket.test) return { reason: 'test', fingerprint: '' };
  if (ticket.surface === 'widget' && !(ticket.integration === 'prebid' && ticket.format === 'native')) {
    const signals = parseClickSignals(f.query, f.userAgent, ageMs, f.impressionAt !== undefined);
    return { reason: clickVerdict(signals), fingerprint: signals.fingerprint };
  }
  const ipPrefix = ipPrefixOf(f.ip);
  const uaHash = uaHashOf(f.userAgent);
  const sameViewer = (!ticket.ipPrefix || ipPrefix === ticket.ipPrefix) && (!ticket.uaHash || uaHash === ticket.uaHash);
  const sinceImpressionMs = f.impressionAt === undefined ? undefined : f.now - f.impressionAt;
  return {
    reason: serverClickVerdict({ userAgent: f.userAgent, ageMs, sinceImpressionMs, sameViewer }),
    fingerprint: `${ipPrefix}-${uaHash}`,
  };
}
