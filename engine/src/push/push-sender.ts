import { Periodic } from '@adnet/runtime/periodic';
import { budgetDay } from '@adnet/schemas/budget-day';
import { Agent } from 'node:https';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import webpush from 'web-push';
import { visitorContext, zoneImp } from '../auction/request-context.ts';
import type { Visitor } from '../auction/request-context.ts';
import { clickLink, serve } from '../auction/serve.ts';
import { impressionCharge, settle } from '../auction/settle.ts';
import type { EngineContext } from '../context.ts';
import { inventoryFacts, makeEvent } from '../events/make-event.ts';
import { removeSubscription, zoneSubscribersKey } from './push-store.ts';
import type { StoredSubscription, SubscriberAudience } from './push-store.ts';

/** A subscriber stored before subscriptions kept their audience: a desktop browser of unknown country and language. */
const UNKNOWN_AUDIENCE: SubscriberAudience = { country: undefined, language: undefined, device: 'desktop', os: undefined, browser: undefined };

/** The subscriber as a visitor: the audience it subscribed with; never a bot (push services deliver to browsers). */
const subscriberOf = (sub: StoredSubscription): Visitor => ({ ...(sub.audience ?? UNKNOWN_AUDIENCE), ipPrefix: '', uaHash: '', bot: false });

export interface PushSenderOptions {
  ctx: EngineContext;
  redis: Redis;
  vapid: { publicKey: string; privateKey: string };
  minIntervalHours: number;
  /** How often to look for subscribers due a notification. */
  sendIntervalMs: number;
  caFile?: string;
  onError?: (err: unknown) => void;
}

/**
 * Sends push ads to the subscribers of push zones. Every engine runs it; a
 * lease per subscriber in Redis (SET NX for the minimum interval) makes one
 * engine send at most one notification per subscriber per interval, which is
 * also the frequency cap. A subscription the push service says is gone (404,
 * 410) is dropped.
 */
export class PushSender {
  private readonly worker: Periodic;
  private readonly agent: Agent | undefined;
  sent = 0;
  dropped = 0;

  constructor(private readonly o: PushSenderOptions) {
    this.agent = o.caFile ? new Agent({ ca: readFileSync(o.caFile) }) : undefined;
    this.worker = new Periodic({ intervalMs: o.sendIntervalMs, pass: () => this.pass(), onError: (err) => o.onError?.(err) });
  }

  start(): void {
    this.worker.start();
  }

  stop(): Promise<void> {
    return this.worker.stop();
  }

  runOnce(): Promise<void> {
    return this.worker.runOnce();
  }

  private async pass(): Promise<void> {
    const { ctx, redis } = this.o;
    const index = ctx.index();
    if (!index) return;
    for (const entry of index.zones.values()) {
      const zone = entry.zone;
      if (!entry.serving || zone.format !== 'push') continue;
      const subs = await redis.hgetall(zoneSubscribersKey(zone.subid));
      for (const [id, raw] of Object.entries(subs)) {
        const sub = JSON.parse(raw) as StoredSubscription;
        // A subscription not renewed in time lapses: it is dropped, not sent to.
        if (sub.expires_at !== undefined && sub.expires_at < Date.now()) {
          await redis.hdel(zoneSubscribersKey(zone.subid), id);
          this.dropped++;
          continue;
        }
        const lease = await redis.set(`push:sent:{${zone.subid}}:${id}`, '1', 'EX', this.o.minIntervalHours * 3600, 'NX');
        if (lease !== 'OK') continue;
        const rc = visitorContext(index, subscriberOf(sub), Date.now(), 'push');
        const ic = zoneImp(rc, entry);
        const out = serve(ctx, rc, ic);
        if (!out.won) continue;
        const cr = out.candidate.creative;
        const payload = JSON.stringify({ title: cr.title, body: cr.body, icon: cr.image_url, url: clickLink(ctx.baseUrl, out) });
        try {
          await webpush.sendNotification({ endpoint: sub.endpoint, keys: sub.keys }, payload, {
            vapidDetails: { subject: ctx.baseUrl.startsWith('https:') ? ctx.baseUrl : 'mailto:ops@example.com', ...this.o.vapid },
            TTL: 3600,
            ...(this.agent ? { agent: this.agent } : {}),
          });
          this.sent++;
          // The delivery is the impression a click on the notification must follow.
          await ctx.counters.countOnce('imp', out.bidId);
          const c = out.candidate;
          // A delivered notification is the impression, charged like a served display ad.
          const ts = Date.now();
          const event = makeEvent('impression', {
            ts,
            engine: ctx.engineId,
            bid_id: out.bidId,
            campaign_id: c.campaignId,
            creative_id: c.creativeId,
            advertiser_id: c.advertiserId,
            price_micro_cents: out.priceMicroCents,
            charge_nano: impressionCharge(c.bidType, out.priceMicroCents),
            ...inventoryFacts(ic.inventory),
          });
          settle({ spend: ctx.budget, emit: ctx.emit }, event, budgetDay(ts), ctx.engineId);
        } catch (err) {
          const status = (err as { statusCode?: number }).statusCode;
          if (status === 404 || status === 410) {
            // Gone for good: off this zone, and off the browser's own list of zones (its per-subscriber cap).
            await removeSubscription(redis, sub.endpoint, zone.subid);
            this.dropped++;
          } else this.o.onError?.(err);
        }
      }
    }
  }
}
