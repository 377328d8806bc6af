// A push zone's part of the widget: at the moment the publisher chose (schemas/src/push.ts), ask for
// permission, register our service worker from the site's root, subscribe with our VAPID key and tell
// the engine (`POST /push/subscribe`). Every visit with permission already granted subscribes again,
// which renews the subscription before it lapses (engine/src/push/push-store.ts).

import type { ZoneConfig } from '@adnet/schemas/widget';

type PushSettings = NonNullable<ZoneConfig['push']>;

/** Where the worker finds the zones this browser subscribed on, to renew them on `pushsubscriptionchange`. */
export const ZONES_CACHE = 'adnet-push';
export const ZONES_KEY = '/adnet-push/zones';

function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
  const b64 = base64url.replace(/-/g, '+').replace(/_/g, '/');
  const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const out = new Uint8Array(new ArrayBuffer(raw.length));
  for (let i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
  return out;
}

/** Adds the zone to the list the worker keeps (same origin: the page and the worker share Cache Storage). */
async function rememberZone(subid: string): Promise<void> {
  if (typeof caches === 'undefined') return;
  const cache = await caches.open(ZONES_CACHE);
  const known = await cache.match(ZONES_KEY);
  const zones = known ? ((await known.json()) as string[]) : [];
  if (!zones.includes(subid)) zones.push(subid);
  await cache.put(
    ZONES_KEY,
    new Response(JSON.stringify(zones.slice(-20)), { headers: { 'content-type': 'application/json' } }),
  );
}

/** Permission, worker, subscription, then the engine; true when the engine kept it. */
export async function subscribePush(cfg: ZoneConfig, push: PushSettings): Promise<boolean> {
  if (!('serviceWorker' in navigator) || typeof PushManager === 'undefined' || typeof Notification === 'undefined')
    return false;
  const permission =
    Notification.permission === 'default' ? await Notification.requestPermission() : Notification.permission;
  if (permission !== 'granted') return false;
  // Scope '/': the worker is the site's, at its root, so it receives pushes whatever page subscribed.
  const reg = await navigator.serviceWorker.register(push.worker, { scope: '/' });
  const sub =
    (await reg.pushManager.getSubscription()) ??
    (await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(push.vapidKey) }));
  await rememberZone(cfg.subid);
  const res = await fetch(`${cfg.base}/push/subscribe`, {
    method: 'POST',
    // text/plain: a simple request, no preflight.
    headers: { 'content-type': 'text/plain' },
    body: JSON.stringify({ zone: cfg.subid, subscription: sub.toJSON() }),
    credentials: 'omit',
  });
  return res.status === 201;
}

/** Asks at the publisher's moment; a browser that already said yes is subscribed again at once, one that said no never asked again. */
export function askForPush(cfg: ZoneConfig, push: PushSettings): void {
  if (typeof Notification === 'undefined' || Notification.permission === 'denied') return;
  const go = () => void subscribePush(cfg, push).catch(() => undefined);
  if (Notification.permission === 'granted' || push.on === 'load') go();
  else if (push.on === 'delay') setTimeout(go, (push.delaySec ?? 0) * 1000);
  // The first click anywhere on the page: browsers let a prompt that follows a gesture through.
  else document.addEventListener('click', go, { once: true, capture: true });
}
