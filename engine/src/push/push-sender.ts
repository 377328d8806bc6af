import { budgetDay } from '@adnet/schemas/budget-day';
import type { EngineEvent } from '@adnet/schemas/events';
import { cpmMicroCentsToNanoPerImpression } from '@adnet/schemas/money';
import { Agent } from 'node:https';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Redis } from 'ioredis';
import webpush from 'web-push';
import type { BudgetSlices } from '../budget/budget-slices.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import { zoneAuction } from '../handlers/zone-auction.ts';
import { zoneSubscribersKey } from './push-store.ts';

export interface PushSenderOptions {
  redis: Redis;
  index: () => EngineIndex | undefined;
  budget: BudgetSlices;
  emit: (e: EngineEvent) => void;
  secret: string;
  engineId: string;
  baseUrl: string;
  vapid: { publicKey: string; privateKey: string };
  minIntervalHours: number;
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
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private readonly agent: Agent | undefined;
  sent = 0;
  dropped = 0;

  constructor(private readonly o: PushSenderOptions) {
    this.agent = o.caFile ? new Agent({ ca: readFileSync(o.caFile) }) : undefined;
  }

  start(intervalMs: number): void {
    this.timer = setInterval(() => void this.runOnce(), intervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  runOnce(): Promise<void> {
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<void> {
    const index = this.o.index();
    if (!index) return;
    for (const { zone, serving } of index.zones.values()) {
      if (!serving || zone.format !== 'push') continue;
      const subs = await this.o.redis.hgetall(zoneSubscribersKey(zone.subid));
      for (const [id, raw] of Object.entries(subs)) {
        const lease = await this.o.redis.set(`push:sent:{${zone.subid}}:${id}`, '1', 'EX', this.o.minIntervalHours * 3600, 'NX');
        if (lease !== 'OK') continue;
        const win = zoneAuction(index, zone, { country: undefined, language: undefined, device: 'desktop' }, this.o.budget, this.o.secret, this.o.engineId);
        if ('reason' in win) continue;
        const cr = win.candidate.creative;
        const payload = JSON.stringify({ title: cr.title, body: cr.body, icon: cr.image_url, url: `${this.o.baseUrl}/c/${win.ticket}/${cr.tracking_token}` });
        try {
          await webpush.sendNotification(JSON.parse(raw) as webpush.PushSubscription, payload, {
            vapidDetails: { subject: this.o.baseUrl.startsWith('https:') ? this.o.baseUrl : 'mailto:ops@example.com', ...this.o.vapid },
            TTL: 3600,
            ...(this.agent ? { agent: this.agent } : {}),
          });
          this.sent++;
          const c = win.candidate;
          // A delivered notification is the impression, charged like a served display ad.
          const charge = c.bidType === 'cpm' ? cpmMicroCentsToNanoPerImpression(win.priceMicroCents) : 0;
          if (charge) this.o.budget.recordSpend(c.campaignId, c.advertiserId, budgetDay(Date.now()), charge, this.o.engineId);
          this.o.emit({
            id: randomUUID(), type: 'impression', ts: Date.now(), engine: this.o.engineId, bid_id: win.bidId, campaign_id: c.campaignId, creative_id: c.creativeId,
            advertiser_id: c.advertiserId, price_micro_cents: win.priceMicroCents, charge_nano: charge, publisher_id: zone.publisher_id, site_id: zone.site_id, zone_id: zone.id,
          });
        } catch (err) {
          const status = (err as { statusCode?: number }).statusCode;
          if (status === 404 || status === 410) {
            await this.o.redis.hdel(zoneSubscribersKey(zone.subid), id);
            this.dropped++;
          } else this.o.onError?.(err);
        }
      }
    }
  }
}
