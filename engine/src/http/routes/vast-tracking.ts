import { countPlayback, countTicket } from '../../auction/count-ticket.ts';
import type { EngineContext } from '../../context.ts';
import { decodeDemandTicket, isDemandToken } from '../../demand/demand-ticket.ts';
import { decodeTicket } from '../../tracking/signed-token.ts';
import { errorReply } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { ticketPorts } from '../core-ports.ts';
import { demandImpression } from './demand.ts';
import { PIXEL_REPLY } from './pixel.ts';
import type { OfflineAnswer } from '../tracking-run.ts';

const VAST_EVENT = /^(start|firstQuartile|midpoint|thirdQuartile|complete|error|viewable)$/;

/** GET /openrtb/imptracker/<ticket>: records a VAST impression once; always answers with a pixel for a valid ticket. */
export function impTrackerRoute(ctx: EngineContext) {
  const ports = ticketPorts(ctx);
  return async (req: EngineRequest, now = Date.now(), attempt?: string): Promise<EngineReply> => {
    // A demand partner's won impression (demand/): its own ticket.
    if (isDemandToken(req.params[0] ?? '')) return demandImpression(ctx, req.params[0] ?? '', now, attempt);
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    if (!ticket) return errorReply('not_found', 'Unknown impression');
    await countTicket(ports, ticket, 'pixel', now, attempt);
    return PIXEL_REPLY;
  };
}

/**
 * GET /t/vast/<event>/<ticket>[?code=N]: a player's playback event or VAST error, recorded once per ad
 * and event; `viewable` (the VAST ViewableImpression) is the video's viewable impression.
 */
export function vastTrackingRoute(ctx: EngineContext) {
  const ports = ticketPorts(ctx);
  return async (req: EngineRequest, now = Date.now(), attempt?: string): Promise<EngineReply> => {
    const event = req.params[0] ?? '';
    const ticket = decodeTicket(ctx.secret, req.params[1] ?? '');
    if (!ticket || !VAST_EVENT.test(event)) return errorReply('not_found', 'Unknown tracking link');
    if (event === 'viewable') {
      await countTicket(ports, ticket, 'viewable', now, attempt);
      return PIXEL_REPLY;
    }
    const code = /^\d{3}$/.exec(new URLSearchParams(req.query).get('code') ?? '')?.[0];
    await countPlayback(ports, ticket, event === 'error' ? `error:${code ?? 'unknown'}` : event, now, attempt);
    return PIXEL_REPLY;
  };
}

/** A VAST impression pixel while Redis is away: the pixel, journaled, for a ticket that checks out. */
export function impTrackerOffline(ctx: EngineContext): OfflineAnswer {
  return (req) => {
    const token = req.params[0] ?? '';
    const valid = isDemandToken(token)
      ? decodeDemandTicket(ctx.secret, token) !== undefined
      : decodeTicket(ctx.secret, token) !== undefined;
    return valid
      ? { reply: PIXEL_REPLY, journal: true }
      : { reply: errorReply('not_found', 'Unknown impression'), journal: false };
  };
}

/** A VAST playback event while Redis is away: the pixel, journaled, for a known event on a ticket that checks out. */
export function vastTrackingOffline(ctx: EngineContext): OfflineAnswer {
  return (req) => {
    const valid = VAST_EVENT.test(req.params[0] ?? '') && decodeTicket(ctx.secret, req.params[1] ?? '') !== undefined;
    return valid
      ? { reply: PIXEL_REPLY, journal: true }
      : { reply: errorReply('not_found', 'Unknown tracking link'), journal: false };
  };
}
