import { countTicket } from '../../auction/count-ticket.ts';
import type { EngineContext } from '../../context.ts';
import { ticketPorts } from '../core-ports.ts';
import { decodeTicket } from '../../tracking/signed-token.ts';
import { ipPrefixOf, uaHashOf } from '../../tracking/viewer.ts';
import { errorReply } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { PIXEL_REPLY } from './pixel.ts';
import { countPop, isPopTicket } from '../../serving/popunder.ts';
import type { OfflineAnswer } from '../tracking-run.ts';

/**
 * GET /b/<ticket>[?e=viewable]: the widget's proof that a served ad was rendered (or, with
 * `e=viewable`, that it was at least half in view for a second). The render beacon is the impression:
 * counted and charged once, and only from the network and browser the ad was served to, within its
 * age limit; anything else is recorded apart and charged nothing. An ad requested and never rendered
 * costs nothing: its budget hold goes back to the pool. A popunder zone's ticket is a pop, whose beacon says its
 * window opened (serving/popunder.ts).
 */
export function beaconRoute(ctx: EngineContext) {
  const ports = ticketPorts(ctx);
  return async (req: EngineRequest, now = Date.now(), attempt?: string): Promise<EngineReply> => {
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    if (!ticket || ticket.surface !== 'widget') return UNKNOWN;
    const use = new URLSearchParams(req.query).get('e') === 'viewable' ? 'beacon-viewable' : 'beacon';
    const sameViewer =
      ipPrefixOf(req.ip) === ticket.ipPrefix && uaHashOf(req.headers['user-agent'] ?? '') === ticket.uaHash;
    // A popunder zone's pop: the window opened, which is its impression and its click (a pop is never viewable).
    if (isPopTicket(ticket)) {
      if (use === 'beacon') await countPop(ctx, ports, ticket, { sameViewer, now, attempt });
      return PIXEL_REPLY;
    }
    await countTicket(ports, ticket, use, now, attempt, ticket.priceMicroCents, sameViewer);
    return PIXEL_REPLY;
  };
}

const UNKNOWN = errorReply('not_found', 'Unknown impression', { 'access-control-allow-origin': '*' });

/** The beacon's answer while Redis is away: the pixel, for a widget ticket that checks out (journaled). */
export function beaconOffline(ctx: EngineContext): OfflineAnswer {
  return (req) => {
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    return ticket?.surface === 'widget' ? { reply: PIXEL_REPLY, journal: true } : { reply: UNKNOWN, journal: false };
  };
}
