import { hbRequestSchema } from '@adnet/schemas/header-bid';
import type { HbRequest } from '@adnet/schemas/header-bid';
import type { EngineContext } from '../../context.ts';
import { headerBids } from '../../serving/header-bid.ts';
import type { HbBid } from '@adnet/schemas/header-bid';
import { hbWinNotice } from '../../serving/header-bid-won.ts';
import { errorReply, json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorOf } from '../visitor.ts';
import { PIXEL_REPLY } from './pixel.ts';

const ORIGIN = /^https?:\/\/[A-Za-z0-9.[\]:-]{1,260}$/;
/** The page's origin echoed (no credentials: the answer is the same for every page), else any. */
const cors = (req: EngineRequest): Record<string, string> => ({
  'access-control-allow-origin': ORIGIN.test(req.headers.origin ?? '') ? (req.headers.origin as string) : '*',
  vary: 'Origin',
  'cache-control': 'no-store',
});

/** OPTIONS /hb/bid: the preflight of a JSON body (Prebid sends text/plain, which needs none). */
export const hbPreflightRoute = (req: EngineRequest): EngineReply => ({
  status: 204,
  headers: {
    ...cors(req),
    'access-control-allow-methods': 'POST, OPTIONS',
    'access-control-allow-headers': 'content-type',
    'access-control-max-age': '86400',
  },
});

/**
 * POST /hb/bid: our Prebid.js adapter's OpenRTB 2.5/2.6 request (JSON, or text/plain), each imp a zone of ours
 * by its subid in `tagid`: 200 with a bid response (serving/header-bid.ts), 204 when no imp has a bid (an unknown,
 * paused or foreign zone included), 400 `{error, code}` naming what is wrong with the body.
 */
export function hbBidRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply | Promise<EngineReply> => {
    const headers = cors(req);
    const parsed = readRequest(req.body);
    if (typeof parsed === 'string') return errorReply('bad_request', parsed, headers);
    const index = ctx.index();
    if (!index) return { status: 204, headers };
    const bids = headerBids(ctx, { index, visitor: visitorOf(req), request: parsed, asker: req });
    const answer = (b: HbBid[]): EngineReply =>
      b.length === 0
        ? { status: 204, headers }
        : json(200, { id: parsed.id, seatbid: [{ seat: 'adnet', bid: b }], cur: 'USD' }, headers);
    return bids instanceof Promise ? bids.then(answer) : answer(bids);
  };
}

/** The request, or what is wrong with it: not JSON, or the first field out of shape (named by its path). */
function readRequest(body: Buffer): HbRequest | string {
  let raw: unknown;
  try {
    raw = JSON.parse(body.toString('utf8'));
  } catch {
    return 'body: must be a JSON bid request';
  }
  const r = hbRequestSchema.safeParse(raw);
  if (r.success) return r.data;
  const issue = r.error.issues[0];
  return `${issue?.path.map(String).join('.') || 'body'}: ${issue?.message ?? 'invalid'}`;
}

/** GET /hb/won/<ticket>: Prebid's win notice for our bid, counted once and charging nothing; a pixel either way. */
export function hbWonRoute(ctx: EngineContext, onCounted: () => void) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    const won = await hbWinNotice(ctx, req.params[0] ?? '', Date.now());
    if (won === 'unknown') return errorReply('not_found', 'Unknown bid', { 'access-control-allow-origin': '*' });
    if (won === 'counted') onCounted();
    return PIXEL_REPLY;
  };
}
