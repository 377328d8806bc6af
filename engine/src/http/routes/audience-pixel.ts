import { PIXEL_TOKEN, VISITOR_COOKIE } from '@adnet/schemas/audiences';
import { randomBytes } from 'node:crypto';
import type { EngineContext } from '../../context.ts';
import { userKeyOf } from '../../frequency/frequency-caps.ts';
import { membershipsOf } from '../../index/audience-index.ts';
import { gdprWithoutConsent } from '../../openrtb/privacy.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorCookieId } from '../visitor.ts';
import { PIXEL_REPLY } from './pixel.ts';

/** How long the browser keeps our id: 400 days, the most a browser honours. */
const COOKIE_MAX_AGE_S = 400 * 86_400;

/**
 * GET /px/<token>.gif[?gdpr=&gdpr_consent=]: the audience pixel an advertiser places on its pages
 * (docs/audiences.md). The browser is known by our own cookie (third-party on the advertiser's pages; set here
 * when it has none, renewed when it has one); a pixel audience's token makes it a member for the audience's
 * lifetime. Unknown, malformed or absent tokens get the same image and headers as a known one: nothing says
 * which tokens exist. A request that says GDPR applies without consent records nothing and sets no cookie.
 */
export function audiencePixelRoute(ctx: EngineContext) {
  const secure = ctx.baseUrl.startsWith('https:');
  // A third-party cookie needs SameSite=None, which browsers accept only with Secure (so only over https).
  const attributes = `; Max-Age=${COOKIE_MAX_AGE_S}; Path=/; HttpOnly; ${secure ? 'SameSite=None; Secure' : 'SameSite=Lax'}`;
  return (req: EngineRequest): EngineReply => {
    const q = new URLSearchParams(req.query);
    if (gdprWithoutConsent(q.get('gdpr'), q.get('gdpr_consent'))) return PIXEL_REPLY;
    const now = Date.now();
    const raw = visitorCookieId(req.headers.cookie)?.slice(2) ?? randomBytes(16).toString('base64url');
    const file = req.params[0] ?? '';
    const token = file.endsWith('.gif') ? file.slice(0, -4) : '';
    const ref = PIXEL_TOKEN.test(token) ? ctx.index()?.audiences.pixels.get(token) : undefined;
    if (ref) ctx.audiences.add(userKeyOf(`c:${raw}`), membershipsOf([ref], now), now);
    return {
      ...PIXEL_REPLY,
      headers: { ...PIXEL_REPLY.headers, 'set-cookie': `${VISITOR_COOKIE}=${raw}${attributes}` },
    };
  };
}
