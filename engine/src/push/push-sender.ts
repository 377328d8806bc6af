import { Periodic } from '@adnet/runtime/periodic';
import { budgetDay } from '@adnet/schemas/budget-day';
import { createHmac } from 'node:crypto';
import { Agent } from 'node:https';
import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import webpush from 'web-push';
import { visitorContext, zoneImp } from '../auction/request-context.ts';
import type { Visitor } from '../auction/request-context.ts';
import type { BidBudget, SpendRecorder } from '../auction/ports.ts';
import { clickLink } from '../auction/serve.ts';
import type { ServeDeps } from '../auction/serve.ts';
import { impressionCharge, settle } from '../auction/settle.ts';
import { inventoryFacts, makeEvent } from '../events/make-event.ts';
import { countDemandImpression } from '../demand/demand-impression.ts';
import type { DemandImpressionPorts } from '../demand/demand-impression.ts';
import { decodeDemandTicket, demandClickLink } from '../demand/demand-ticket.ts';
import { sendWinNotice, takes } from '../demand/supply.ts';
import type { PartnerWin, SupplyDeps } from '../demand/supply.ts';
import { zoneAd, zoneAuctionStart } from '../serving/zone-ad.ts';
import type { Asker, ZoneSurface } from '../serving/zone-ad.ts';
import type { EngineIndex, ZoneEntry } from '../index/engine-index.ts';
import { removeSubscription, zoneSubscribersKey } from './push-store.ts';
import type { StoredSubscription, SubscriberAudience } from './push-store.ts';

/**
 * The share of each demand partner's QPS a push pass leaves to page views and players, which cannot wait; and how
 * long one notification waits for the partners' QPS before it goes to auction without those still out of it.
 */
export const PUSH_QPS_KEEP = 0.5;
export const PUSH_QPS_WAIT_MS = 1_000;

const PUSH_SURFACE: ZoneSurface = { name: 'push', keepShare: PUSH_QPS_KEEP, screened: false };
/** A delivery has no request: partners are told no user agent, address or page. */
const NO_ASKER: Asker = { headers: {}, ip: '' };

/** A subscriber stored before subscriptions kept their audience: a desktop browser of unknown country and language. */
const UNKNOWN_AUDIENCE: SubscriberAudience = {
  country: undefined,
  language: undefined,
  device: 'desktop',
  os: undefined,
  browser: undefined,
};

/** The subscriber as a visitor: the audience it subscribed with; never a bot (push services deliver to browsers). */
const subscriberOf = (sub: StoredSubscription): Visitor => ({
  ...(sub.audience ?? UNKNOWN_AUDIENCE),
  ipPrefix: '',
  uaHash: '',
  bot: false,
});

/**
 * What the push sender reaches of the engine (built in wiring/ports.ts): a notification is served as an /imp
 * is (serve, the supply auction), settled when delivered, and a partner's delivery counted as its impression.
 */
export interface PushPorts extends ServeDeps, DemandImpressionPorts {
  /** The current index; undefined until the first snapshot is loaded. */
  index(): EngineIndex | undefined;
  budget: BidBudget & SpendRecorder;
  /** Absent: our campaigns alone. */
  demand?: SupplyDeps;
  baseUrl: string;
  auctionTimeoutMs: number;
}

export interface PushSenderOptions {
  ctx: PushPorts;
  redis: Redis;
  vapid: { publicKey: string; privateKey: string };
  minIntervalHours: number;
  /** How often to look for subscribers due a notification. */
  sendIntervalMs: number;
  /** Subscribers handled at once in a pass (each may wait on an auction of up to 200 ms); default 32. */
  concurrency?: number;
  caFile?: string;
  onError?: (err: unknown) => void;
}

/**
 * Sends push ads to the subscribers of push zones. Every engine runs it; a
 * lease per subscriber in Redis (SET NX for the minimum interval) makes one
 * engine send at most one notification per subscriber per interval, which is
 * also the frequency cap. Each notification is one auction between our
 * campaigns and the demand partners taking `push` (demand/supply.ts), as an
 * /imp is. A subscription the push service says is gone (404, 410) is dropped.
 */
export class PushSender {
  private readonly worker: Periodic;
  private readonly agent: Agent | undefined;
  sent = 0;
  dropped = 0;

  constructor(private readonly o: PushSenderOptions) {
    this.agent = o.caFile ? new Agent({ ca: readFileSync(o.caFile) }) : undefined;
    this.worker = new Periodic({
      intervalMs: o.sendIntervalMs,
      pass: () => this.pass(),
      onError: (err) => o.onError?.(err),
    });
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
    const due: { subid: string; id: string; raw: string }[] = [];
    for (const entry of index.zones.values()) {
      if (!entry.serving || entry.zone.format !== 'push') continue;
      const subid = entry.zone.subid;
      for (const [id, raw] of Object.entries(await redis.hgetall(zoneSubscribersKey(subid))))
        due.push({ subid, id, raw });
    }
    // Side by side, at most `concurrency` at once: an auction waits up to 200 ms on its partners, and a
    // pass of one subscriber after another would take that long per subscriber. One subscriber's
    // failure is reported and costs the others nothing.
    let next = 0;
    const worker = async () => {
      // A stopping engine hands back what it has not begun: those subscribers hold no lease yet.
      while (next < due.length && !this.worker.stopping) {
        const d = due[next++] as (typeof due)[number];
        await this.sendOne(d.subid, d.id, d.raw).catch((err: unknown) => this.o.onError?.(err));
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.o.concurrency ?? 32, due.length) }, worker));
  }

  private async sendOne(subid: string, id: string, raw: string): Promise<void> {
    const { ctx, redis } = this.o;
    if (!this.servingZone(subid)) return;
    const sub = JSON.parse(raw) as StoredSubscription;
    // A subscription not renewed in time lapses: it is dropped, not sent to.
    if (sub.expires_at !== undefined && sub.expires_at < Date.now()) {
      await redis.hdel(zoneSubscribersKey(subid), id);
      this.dropped++;
      return;
    }
    const lease = await redis.set(`push:sent:{${subid}}:${id}`, '1', 'EX', this.o.minIntervalHours * 3600, 'NX');
    if (lease !== 'OK') return;
    await this.awaitPartnerQps(subscriberOf(sub).country);
    // The index as it is now, not as the pass found it: a pass outlives changes (it is paced to the partners'
    // QPS), and a campaign paused, a partner disabled or a zone stopped since it began must not serve.
    const current = this.servingZone(subid);
    if (!current) return;
    const { index, entry } = current;
    const zone = entry.zone;
    // The auction's 200 ms run from here, our own scoring included, as for /imp.
    const started = zoneAuctionStart(ctx, index);
    const rc = visitorContext(index, subscriberOf(sub), Date.now(), 'push');
    const ic = zoneImp(rc, entry);
    // Neither the subscriber's browser nor its address is kept: its audience is what we know.
    const ad = await zoneAd(ctx, rc, ic, entry, PUSH_SURFACE, NO_ASKER, () => pushUserKey(ctx.secret, id), started);
    if (!('kind' in ad) && !ad.won) return;
    const payload =
      'kind' in ad
        ? JSON.stringify({
            title: ad.push?.title ?? '',
            body: ad.push?.text ?? '',
            icon: ad.push?.icon ?? '',
            // Our click link: the partner's landing is reached through our redirect (routes/demand.ts demandClick).
            url: demandClickLink(ctx.baseUrl, ad.token),
          })
        : JSON.stringify({
            title: ad.candidate.creative.title,
            body: ad.candidate.creative.body,
            icon: ad.candidate.creative.image_url,
            url: clickLink(ctx.baseUrl, ad),
          });
    try {
      await webpush.sendNotification({ endpoint: sub.endpoint, keys: sub.keys }, payload, {
        vapidDetails: {
          subject: ctx.baseUrl.startsWith('https:') ? ctx.baseUrl : 'mailto:ops@example.com',
          ...this.o.vapid,
        },
        TTL: 3600,
        ...(this.agent ? { agent: this.agent } : {}),
      });
    } catch (err) {
      const status = (err as { statusCode?: number }).statusCode;
      if (status === 404 || status === 410) {
        // Gone for good: off this zone, and off the browser's own list of zones (its per-subscriber cap).
        await removeSubscription(redis, sub.endpoint, zone.subid);
        this.dropped++;
      } else this.o.onError?.(err);
      return;
    }
    this.sent++;
    if ('kind' in ad) return this.partnerDelivered(ad);
    const served = ad;
    // The delivery is the impression a click on the notification must follow.
    await ctx.counters.countOnce('imp', served.bidId);
    const c = served.candidate;
    // A delivered notification is the impression, charged like a served display ad.
    const ts = Date.now();
    const event = makeEvent('impression', {
      ts,
      engine: ctx.engineId,
      integration: 'push',
      bid_id: served.bidId,
      campaign_id: c.campaignId,
      creative_id: c.creativeId,
      advertiser_id: c.advertiserId,
      price_micro_cents: served.priceMicroCents,
      charge_nano: impressionCharge(c.bidType, served.priceMicroCents),
      ...inventoryFacts(ic.inventory),
    });
    settle({ spend: ctx.budget, emit: ctx.emit }, event, budgetDay(ts), ctx.engineId);
  }

  private servingZone(subid: string): { index: EngineIndex; entry: ZoneEntry } | undefined {
    const index = this.o.ctx.index();
    const entry = index?.zones.get(subid);
    return index && entry?.serving && entry.zone.format === 'push' ? { index, entry } : undefined;
  }

  /**
   * Waits, at most PUSH_QPS_WAIT_MS, until every partner taking this notification has a request left within its
   * QPS beyond the share kept for page views. A notification can wait and a page view cannot; a pass that asked
   * the partners as fast as its workers run would spend their allowance in its first second and send the rest
   * of its notifications without them.
   */
  private async awaitPartnerQps(country: string | undefined): Promise<void> {
    const d = this.o.ctx.demand;
    if (!d) return;
    const deadline = d.now() + PUSH_QPS_WAIT_MS;
    while (!this.worker.stopping) {
      let wait = 0;
      for (const p of this.o.ctx.index()?.demandPartners ?? [])
        if (takes(p, 'push', country)) wait = Math.max(wait, d.limiter.msUntil(p.id, p.qps_limit, PUSH_QPS_KEEP));
      const left = deadline - d.now();
      if (wait === 0 || left <= 0) return;
      await sleep(Math.min(wait, left));
    }
  }

  /**
   * A partner's notification was taken by the push service: it is served (its win notice, once) and,
   * as our own push ads, that delivery is its impression: counted once, its billing notice sent, the
   * publisher credited the clearing price (countDemandImpression).
   */
  private async partnerDelivered(o: PartnerWin): Promise<void> {
    const { ctx } = this.o;
    const d = ctx.demand;
    const t = decodeDemandTicket(ctx.secret, o.token);
    if (!d || !t) return;
    if (o.nurl) sendWinNotice(d, o.auctionId, o.partnerId, o.nurl);
    await countDemandImpression(ctx, t, () => Promise.resolve(o.burl));
  }
}

/** The subscriber as OpenRTB `user.id`: a keyed hash of its endpoint's id, never the endpoint. */
const pushUserKey = (secret: string, id: string): string =>
  createHmac('sha256', `push-user:${secret}`).update(id).digest('base64url').slice(0, 22);
