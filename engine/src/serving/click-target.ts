import { isSafeHttpUrl } from '@adnet/schemas/url';
import { userAgentFacts } from '../audience/user-agent.ts';
import type { EngineContext } from '../context.ts';
import { clickIdOf } from '../tracking/click-id.ts';
import { landingUrlOf } from '../tracking/landing-url.ts';
import { decodeTicket } from '../tracking/signed-token.ts';

export type ClickTarget = NonNullable<ReturnType<typeof clickTarget>>;

/**
 * What a click link must be before anything is counted: a signed ticket, the creative it names with its token, a
 * plain http(s) landing. The Location header is written from stored data: a landing URL kept before the API
 * refused line breaks and other schemes must not split the response or send the visitor to a script.
 */
export function clickTarget(ctx: EngineContext, params: readonly string[]) {
  const ticket = decodeTicket(ctx.secret, params[0] ?? '');
  const creative = ticket ? ctx.index()?.creatives.get(ticket.creativeId) : undefined;
  if (!ticket || !creative || creative.tracking_token !== params[1]) return undefined;
  if (!isSafeHttpUrl(creative.landing_url)) return undefined;
  return {
    ticket,
    creative,
    campaign: ctx.index()?.campaigns.get(ticket.campaignId),
    clickId: clickIdOf(ctx.secret, ticket.bidId),
  };
}

/** The viewer the ad was served to; a ticket signed before it carried them: the clicking browser. */
export function clickViewer(target: ClickTarget, userAgent: string): { os: string; browser: string } {
  const { ticket } = target;
  return {
    os: ticket.os || userAgentFacts(userAgent).os || '',
    browser: ticket.browser || userAgentFacts(userAgent).browser || '',
  };
}

/** The landing page with its macros filled in, `{cost}` the charge; undefined when it is no plain http(s) URL. */
export function clickLanding(
  target: ClickTarget,
  viewer: { os: string; browser: string },
  chargeNano: number,
): string | undefined {
  const { ticket, creative, campaign, clickId } = target;
  return landingUrlOf(creative.landing_url, ticket, { clickId, bidType: campaign?.bid_type, chargeNano, ...viewer });
}
