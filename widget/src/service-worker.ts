// Our service worker, hosted by the publisher at the root of the site (/adnet-sw.js, downloaded from
// `{base_url}/push/sw.js`): shows our push ads and opens their click links, and renews the subscription
// when the browser replaces it. `__ADNET_BASE__` is the engine's base URL, set when the engine builds it.

import { isSafeHttpUrl } from '@adnet/schemas/url';
import type { PushMessage } from '@adnet/schemas/push';

declare const __ADNET_BASE__: string;
const BASE = __ADNET_BASE__;
const ZONES_CACHE = 'adnet-push';
const ZONES_KEY = '/adnet-push/zones';

// The worker's globals, as far as it uses them (the widget's TypeScript lib is the DOM's, not WebWorker's).
interface Extendable extends Event {
  waitUntil(p: Promise<unknown>): void;
}
interface PushEv extends Extendable {
  data: { text(): string } | null;
}
interface ClickEv extends Extendable {
  notification: Notification;
}
interface SubscriptionChangeEv extends Extendable {
  oldSubscription: PushSubscription | null;
  newSubscription: PushSubscription | null;
}
interface WorkerScope {
  registration: ServiceWorkerRegistration;
  clients: { openWindow(url: string): Promise<unknown>; claim(): Promise<void> };
  skipWaiting(): Promise<void>;
  addEventListener(type: 'push', fn: (e: PushEv) => void): void;
  addEventListener(type: 'notificationclick', fn: (e: ClickEv) => void): void;
  addEventListener(type: 'pushsubscriptionchange', fn: (e: SubscriptionChangeEv) => void): void;
  addEventListener(type: 'install' | 'activate', fn: (e: Extendable) => void): void;
}
const sw = globalThis as unknown as WorkerScope;

/** Only our own click links are opened: a message is ours, but a link that is not is never followed. */
const ourClick = (url: unknown): string =>
  typeof url === 'string' && isSafeHttpUrl(url) && url.startsWith(`${BASE}/c/`) ? url : '';
const text = (v: unknown, max: number): string => (typeof v === 'string' ? v.slice(0, max) : '');

function parse(raw: string): PushMessage | undefined {
  try {
    const m = JSON.parse(raw) as Record<string, unknown>;
    const url = ourClick(m.url);
    const title = text(m.title, 200);
    if (!url || !title) return undefined;
    const icon = typeof m.icon === 'string' && isSafeHttpUrl(m.icon) ? m.icon : '';
    return { title, body: text(m.body, 500), icon, url };
  } catch {
    return undefined;
  }
}

sw.addEventListener('install', () => void sw.skipWaiting());
sw.addEventListener('activate', (e) => e.waitUntil(sw.clients.claim()));

sw.addEventListener('push', (e) => {
  const m = e.data ? parse(e.data.text()) : undefined;
  if (!m) return;
  const options: NotificationOptions = { body: m.body, data: { url: m.url }, tag: 'adnet' };
  if (m.icon) options.icon = m.icon;
  e.waitUntil(sw.registration.showNotification(m.title, options));
});

sw.addEventListener('notificationclick', (e) => {
  e.notification.close();
  const url = ourClick((e.notification.data as { url?: unknown } | null)?.url);
  if (url) e.waitUntil(sw.clients.openWindow(url));
});

/** The browser replaced the subscription: subscribe the new one on every zone the old one was on, then forget the old one. */
async function renew(old: PushSubscription | null, fresh: PushSubscription | null): Promise<void> {
  const cache = await caches.open(ZONES_CACHE);
  const known = await cache.match(ZONES_KEY);
  const zones = known ? ((await known.json()) as string[]) : [];
  let sub = fresh;
  if (!sub) {
    const { public_key } = (await (await fetch(`${BASE}/push/vapid-public-key`)).json()) as { public_key: string };
    const b64 = public_key.replace(/-/g, '+').replace(/_/g, '/');
    const raw = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
    const key = new Uint8Array(new ArrayBuffer(raw.length));
    for (let i = 0; i < raw.length; i++) key[i] = raw.charCodeAt(i);
    sub = await sw.registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
  }
  const post = (path: string, body: unknown) =>
    fetch(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: JSON.stringify(body) });
  for (const zone of zones) await post('/push/subscribe', { zone, subscription: sub.toJSON() });
  if (old && old.endpoint !== sub.endpoint) await post('/push/unsubscribe', { endpoint: old.endpoint });
}

sw.addEventListener('pushsubscriptionchange', (e) => e.waitUntil(renew(e.oldSubscription, e.newSubscription)));
