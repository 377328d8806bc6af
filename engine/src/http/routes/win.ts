import { exchangePriceMicroCents } from '../../auction/price.ts';
import { countTicket } from '../../auction/count-ticket.ts';
import type { EngineContext } from '../../context.ts';
import { decodeTicket } from '../../tracking/signed-token.ts';
import { errorReply, json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { ticketPorts } from '../core-ports.ts';
import type { OfflineAnswer } from '../tracking-run.ts';

/**
 * GET /openrtb/win/<ticket>?price=${AUCTION_PRICE}: counts a win once and charges the clearing price;
 * GET /openrtb/bill/<ticket>?price=${AUCTION_PRICE} (`use` 'bill'): the same for a partner's billing
 * notice. For a partner that bills by billing notices, the win notice counts nothing: the billing
 * notice is the impression. Both count under one once-only mark, so an ad is charged once whichever
 * arrives.
 */
export function winRoute(ctx: EngineContext, use: 'win' | 'bill' = 'win') {
  const ports = ticketPorts(ctx);
  return async (req: EngineRequest, now = Date.now(), attempt?: string): Promise<EngineReply> => {
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    if (!ticket) return forged(use);
    if (use === 'win' && billsByBurl(ctx, ticket.partnerId)) return json(200, { ok: true, counted: false });
    const price = exchangePriceMicroCents(new URLSearchParams(req.query).get('price'), ticket.priceMicroCents);
    if (price === undefined) return BAD_PRICE;
    return json(200, { ok: true, counted: await countTicket(ports, ticket, use, now, attempt, price) });
  };
}

const forged = (use: 'win' | 'bill'): EngineReply =>
  errorReply('forbidden', use === 'win' ? 'Invalid or forged win notice' : 'Invalid or forged billing notice');
const BAD_PRICE = errorReply('bad_request', 'price must be a non-negative decimal (CPM in USD)');

/**
 * A win or billing notice while Redis is away: acknowledged and journaled once its ticket and price check out;
 * `counted` is unknown until the replay, so the answer says `journaled` instead.
 */
export function winOffline(ctx: EngineContext, use: 'win' | 'bill' = 'win'): OfflineAnswer {
  return (req) => {
    const ticket = decodeTicket(ctx.secret, req.params[0] ?? '');
    if (!ticket) return { reply: forged(use), journal: false };
    if (exchangePriceMicroCents(new URLSearchParams(req.query).get('price'), ticket.priceMicroCents) === undefined)
      return { reply: BAD_PRICE, journal: false };
    return { reply: json(200, { ok: true, counted: false, journaled: true }), journal: true };
  };
}

const billsByBurl = (ctx: EngineContext, partnerId: number): boolean =>
  ctx.index()?.partners.find((p) => p.partner.id === partnerId)?.partner.billing_notice === 'burl';
