import { countClick, impressionTime } from '../../auction/count-click.ts';
import { clickChargeNano } from '../../auction/settle.ts';
import type { EngineContext } from '../../context.ts';
import { isDemandToken } from '../../demand/demand-ticket.ts';
import { judgeClick } from '../../fraud/judge-click.ts';
import { clickLanding, clickTarget, clickViewer } from '../../serving/click-target.ts';
import { errorReply } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { NotJudgedYet } from '../tracking-run.ts';
import type { OfflineAnswer, RunOptions } from '../tracking-run.ts';
import { demandClick } from './demand.ts';

/**
 * GET /c/<impression id>/<tracking token>?ttc&x&y&focus&fp&s: records the
 * click (valid, or invalid with the fraud rule it broke, or unbilled because
 * its campaign stopped or its budget or balance ran out) and redirects to the
 * landing page with its macros filled in (tracking/landing-url.ts). Invalid clicks still reach the
 * landing page: a person should never be stranded, only not billed.
 */
export function clickRoute(ctx: EngineContext) {
  return async (req: EngineRequest, now = Date.now(), attempt?: string, run?: RunOptions): Promise<EngineReply> => {
    // A click on a demand partner's ad we rendered (native, push): its own signed ticket and landing.
    if (isDemandToken(req.params[0] ?? '')) return demandClick(ctx, req, now, attempt);
    const target = clickTarget(ctx, req.params);
    if (!target) return errorReply('not_found', 'Unknown ad link');
    const { ticket } = target;
    const ua = req.headers['user-agent'] ?? '';
    // The click path's one read before the verdict: a widget ad's render beacon, or another surface's impression.
    const impressionAt = await impressionTime(ctx.counters, ticket);
    const verdict = judgeClick({ ticket, query: req.query, userAgent: ua, ip: req.ip, now, impressionAt });
    if (run?.answered?.late) throw new NotJudgedYet('answered past the deadline before it was judged');
    if (verdict.reason === 'not_rendered' && (run?.deferUnrendered || (await run?.journalPending?.())))
      throw new NotJudgedYet('render not counted yet');
    const viewer = clickViewer(target, ua);
    const chargeNano = await countClick(ctx, target, verdict, viewer.os, viewer.browser, now, attempt);
    const landing = clickLanding(target, viewer, chargeNano);
    // The redirect writes no Location that is not a plain http(s) URL.
    return landing ? redirect(landing) : errorReply('not_found', 'Unknown ad link');
  };
}

const redirect = (location: string): EngineReply => ({
  status: 302,
  headers: { location, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer-when-downgrade' },
});

/**
 * The click's answer while Redis is away: the same redirect once the link checks out, its `{cost}` the CPC
 * charge the click would pay if valid (the replay judges it). A partner's click has its landing in Redis
 * only: it is answered 503 and not journaled.
 */
export function clickOffline(ctx: EngineContext): OfflineAnswer {
  return (req) => {
    if (isDemandToken(req.params[0] ?? ''))
      return { reply: errorReply('unavailable', 'Try again in a moment'), journal: false };
    const target = clickTarget(ctx, req.params);
    if (!target) return { reply: errorReply('not_found', 'Unknown ad link'), journal: false };
    const { campaign, ticket } = target;
    const chargeNano = campaign?.bid_type === 'cpc' ? clickChargeNano(campaign, ticket.clickMicroCents) : 0;
    const landing = clickLanding(target, clickViewer(target, req.headers['user-agent'] ?? ''), chargeNano);
    return landing
      ? { reply: redirect(landing), journal: true }
      : { reply: errorReply('not_found', 'Unknown ad link'), journal: false };
  };
}
