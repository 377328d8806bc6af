import { pushSubscribeSchema } from '@adnet/schemas/publisher';
import { pushUnsubscribeSchema } from '@adnet/schemas/push';
import type { EngineContext } from '../../context.ts';
import { allowedPushHost } from '../../push/push-store.ts';
import { errorReply, json } from '../adapt.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { visitorOf } from '../visitor.ts';
import { bodyAs } from '../json-body.ts';

const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, OPTIONS',
  'access-control-allow-headers': 'content-type',
  'access-control-max-age': '86400',
};

export const pushPreflightRoute = (): EngineReply => ({ status: 204, headers: CORS });

/** GET /push/vapid-public-key: the application server key browsers subscribe with. */
export const vapidKeyRoute = (ctx: EngineContext) => (): EngineReply =>
  json(200, { public_key: ctx.push.vapidPublicKey }, CORS);

/**
 * POST /push/subscribe with `{zone, subscription}` (the browser's PushSubscription
 * JSON): 201 `{ok, id}`; 400 naming the bad field; 404 for a zone that is not a
 * serving push zone. The body may be sent as text/plain to spare a preflight.
 */
export function subscribeRoute(ctx: EngineContext) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    const parsed = bodyAs(req, pushSubscribeSchema, CORS);
    if (!parsed.ok) return parsed.reply;
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
        saved.reason === 'zone_full'
          ? 'This zone has as many subscribers as it may keep'
          : 'This browser is subscribed on as many zones as it may be';
      return errorReply('conflict', why, CORS);
    }
    return json(201, { ok: true, id: saved.id }, CORS);
  };
}

/**
 * POST /push/unsubscribe with `{endpoint, zone?}`: forgets the browser's subscription on that zone, or on
 * every zone without one. 200 `{ok, removed}` (the zones it was on) every time, so a repeat is harmless;
 * 400 naming the bad field. Knowing the endpoint (the browser's secret push address) is the right to drop it.
 */
export function unsubscribeRoute(ctx: EngineContext) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    const parsed = bodyAs(req, pushUnsubscribeSchema, CORS);
    if (!parsed.ok) return parsed.reply;
    const removed = await ctx.push.remove(parsed.data.endpoint, parsed.data.zone);
    return json(200, { ok: true, removed }, CORS);
  };
}

/**
 * GET /push/sw.js: our service worker for publishers to host at their site's root as /adnet-sw.js (a
 * worker's scope cannot be wider than its own folder, and it must come from the site's own origin).
 * `?download=1` answers it as an attachment of that name.
 */
export function workerRoute(ctx: EngineContext) {
  return (req: EngineRequest): EngineReply => {
    const download = new URLSearchParams(req.query).get('download') === '1';
    return {
      status: 200,
      headers: {
        'content-type': 'application/javascript; charset=utf-8',
        'cache-control': 'public, max-age=3600',
        'access-control-allow-origin': '*',
        ...(download ? { 'content-disposition': 'attachment; filename="adnet-sw.js"' } : {}),
      },
      body: ctx.push.worker,
    };
  };
}
