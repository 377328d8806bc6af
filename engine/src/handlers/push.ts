import { pushSubscribeSchema } from '@adnet/schemas/publisher';
import type { Redis } from 'ioredis';
import type { EngineIndex } from '../index/engine-index.ts';
import { allowedPushHost, saveSubscription } from '../push/push-store.ts';
import type { EngineReply, EngineRequest } from '../transport/http-adapter.ts';
import { json } from '../transport/http-adapter.ts';

export interface PushDeps {
  index: () => EngineIndex | undefined;
  redis: Redis;
  serviceHosts: readonly string[];
  vapidPublicKey: string;
}

const CORS = { 'access-control-allow-origin': '*', 'access-control-allow-methods': 'GET, POST, OPTIONS', 'access-control-allow-headers': 'content-type', 'access-control-max-age': '86400' };

export const pushPreflight = (): EngineReply => ({ status: 204, headers: CORS });

/** GET /push/vapid-public-key: the application server key browsers subscribe with. */
export const vapidKeyHandler = (deps: PushDeps) => (): EngineReply => json(200, { public_key: deps.vapidPublicKey }, CORS);

/**
 * POST /push/subscribe with `{zone, subscription}` (the browser's PushSubscription
 * JSON): 201 `{ok, id}`; 400 naming the bad field; 404 for a zone that is not a
 * serving push zone. The body may be sent as text/plain to spare a preflight.
 */
export function subscribeHandler(deps: PushDeps) {
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
    if (!allowedPushHost(subscription.endpoint, deps.serviceHosts)) {
      return json(400, { errors: { 'subscription.endpoint': 'must be a browser push service endpoint' } }, CORS);
    }
    const entry = deps.index()?.zones.get(zone);
    if (!entry?.serving || entry.zone.format !== 'push') return json(404, { error: 'No such push zone', code: 'not_found' }, CORS);
    const id = await saveSubscription(deps.redis, zone, subscription);
    return json(201, { ok: true, id }, CORS);
  };
}
