import type { EngineContext } from '../../context.ts';
import { directLinkVisit } from '../../serving/direct-link.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { ticketPorts } from '../core-ports.ts';
import { visitorOf } from '../visitor.ts';

const SUBID = /^[A-Za-z0-9]{1,32}$/;
/** Nothing to show: the browser stays where it was. */
const NO_AD: EngineReply = { status: 204, headers: { 'cache-control': 'no-store' } };

/**
 * GET /go/<subid>: a direct-link zone's URL (serving/direct-link.ts). A redirect to the winning pop campaign's
 * landing, or to the zone's fallback URL; 204 with neither, and for an unknown, paused or other zone.
 */
export function goRoute(ctx: EngineContext) {
  const ports = ticketPorts(ctx);
  return async (req: EngineRequest): Promise<EngineReply> => {
    const subid = req.params[0] ?? '';
    const entry = SUBID.test(subid) ? ctx.index()?.zones.get(subid) : undefined;
    if (!entry?.serving || entry.zone.format !== 'direct_link') return NO_AD;
    // Its page is whatever page linked to it: the foreign-origin rule is for the widget's requests.
    const visitor = { ...visitorOf(req), pageHost: undefined };
    const location = await directLinkVisit(ctx, ports, { entry, visitor, ip: req.ip, now: Date.now() });
    return location
      ? {
          status: 302,
          headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer-when-downgrade' },
        }
      : NO_AD;
  };
}
