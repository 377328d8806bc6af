import { pushSubscribeSchema } from '@adnet/schemas/publisher';
import type { EngineContext } from '../../context.ts';
import { allowedPushHost } from '../../push/push-store.ts';
import { errorReply, json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorOf } from '../visitor.ts';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
};

export const pushPreflightRoute = (): EngineReply => ({ status: 204, headers: CORS });

/** GET /push/vapid-public-key: the application server key browsers subscribe with. */
export const vapidKeyRoute = (ctx: EngineContext) => (): EngineReply => json(200, { public_key: ctx.push.vapidPublicKey }, CORS);

/**
 * POST /push/subscribe with `{zone, subscription}` (the browser's PushSubscription
 * JSON): 201 `{ok, id}`; 400 naming the bad field; 404 for a zone that is not a
 * serving push zone. The body may be sent as text/plain to spare a preflight.
 */
export function subscribeRoute(ctx: EngineContext) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    let body: unknown;
    try {
      body = JSON.parse(req.body.toString('utf8'));
    } catch {
      return json(400, { errors: { body: 'must be valid JSON' } }, CORS);
    }
    const parsed = pushSubscribeSchema.safeParse(body);
    if (!parsed.success) {
      const errors: Record<string, string> = {};
      for (const i of parsed.error.issues) errors[i.path.join('.') || 'body'] ??= i.message;
      return json(400, { errors }, CORS);
    }
    const { zone, subscription } = parsed.data;
    if (!allowedPushHost(subscription.endpoint, ctx.push.serviceHosts)) {
      return json(400, { errors: { 'subscription.endpoint': 'must be a browser push service endpoint' } }, CORS);
    }
    const entry = ctx.index()?.zones.get(zone);
    if (!entry?.serving || entry.zone.format !== 'push') return errorReply('not_found', 'No such push zone', CORS);
    // The notifications go to this browser later, with no request of its own: its country, device, OS and browser are kept now.
    const { country, language, device, os, browser } = visitorOf(req);
    const saved = await ctx.push.save(zone, subscription, { country, language, device, os, browser });
    if (!saved.saved) {
      const why =
        saved.reason === 'zone_full' ? 'This zone has as many subscribers as it may keep' : 'This browser is subscribed on as many zones as it may be';
      return errorReply('conflict', why, CORS);
    }
    return json(201, { ok: true, id: saved.id }, CORS);
  };
}
