import { budgetDay } from '@adnet/schemas/budget-day';
import type { EngineEvent } from '@adnet/schemas/events';
import { cpcMicroCentsToNano } from '@adnet/schemas/money';
import { countedKey } from '@adnet/schemas/redis-keys';
import type { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';
import type { BudgetSlices } from '../budget/budget-slices.ts';
import { clickVerdict, parseClickSignals } from '../fraud/click-rules.ts';
import type { EngineIndex } from '../index/engine-index.ts';
import { decodeTicket } from '../tracking/signed-token.ts';
import type { EngineReply, EngineRequest } from '../transport/http-adapter.ts';
import { json } from '../transport/http-adapter.ts';

export interface ClickDeps {
  index: () => EngineIndex | undefined;
  redis: Redis;
  budget: BudgetSlices;
  emit: (e: EngineEvent) => void;
  secret: string;
  engineId: string;
}

/** Operating system family for postback macros ({os}). */
export function osOf(ua: string): string {
  if (/Windows/i.test(ua)) return 'windows';
  if (/iPhone|iPad|iPod/i.test(ua)) return 'ios';
  if (/Android/i.test(ua)) return 'android';
  if (/Mac OS X|Macintosh/i.test(ua)) return 'macos';
  if (/Linux|X11/i.test(ua)) return 'linux';
  return 'other';
}

/** Browser family for postback macros ({browser}). */
export function browserOf(ua: string): string {
  if (/Edg\//.test(ua)) return 'edge';
  if (/OPR\/|Opera/.test(ua)) return 'opera';
  if (/Firefox\//.test(ua)) return 'firefox';
  if (/Chrome\//.test(ua)) return 'chrome';
  if (/Safari\//.test(ua)) return 'safari';
  return 'other';
}

/** Where a conversion postback finds the click it belongs to. */
export const clickKey = (clickId: string): string => `click:{${clickId}}`;
const CLICK_TTL_S = 30 * 86_400;
/** More valid-looking clicks than this from one fingerprint in a minute are a flood. */
const FLOOD_PER_MINUTE = 5;

/**
 * GET /c/<impression id>/<tracking token>?ttc&x&y&focus&fp&s: records the
 * click (valid, or invalid with the fraud rule it broke) and redirects to the
 * landing page with {click_id} filled in. Invalid clicks still reach the
 * landing page: a person should never be stranded, only not billed.
 */
export function clickHandler(deps: ClickDeps) {
  return async (req: EngineRequest): Promise<EngineReply> => {
    const ticket = decodeTicket(deps.secret, req.params[0] ?? '');
    const creative = ticket ? deps.index()?.creatives.get(ticket.creativeId) : undefined;
    if (!ticket || !creative || creative.tracking_token !== req.params[1]) return json(404, { error: 'Unknown ad link', code: 'not_found' });
    const campaign = deps.index()?.campaigns.get(ticket.campaignId);
    const clickId = randomUUID();
    const now = Date.now();
    const signals = parseClickSignals(req.query, req.headers['user-agent'] ?? '', now - ticket.issuedAt * 1000);
    let reason = clickVerdict(signals);
    if (!reason && (await deps.redis.set(countedKey('click', ticket.bidId), '1', 'EX', 7 * 86_400, 'NX')) !== 'OK') reason = 'duplicate';
    if (!reason) {
      const floodKey = `clicks:fp:{${signals.fingerprint}}:${Math.floor(now / 60_000)}`;
      const [[, n]] = ((await deps.redis.multi().incr(floodKey).expire(floodKey, 120).exec()) ?? [[null, 0]]) as [[Error | null, number]];
      if (n > FLOOD_PER_MINUTE) reason = 'click_flood';
    }
    const charge = !reason && campaign?.bid_type === 'cpc' ? cpcMicroCentsToNano(campaign.bid_micro_cents) : 0;
    if (charge) deps.budget.recordSpend(ticket.campaignId, ticket.advertiserId, budgetDay(now), charge, ticket.engine);
    const ua = req.headers['user-agent'] ?? '';
    const context = {
      campaign_id: ticket.campaignId, creative_id: ticket.creativeId, advertiser_id: ticket.advertiserId,
      publisher_id: ticket.publisherId, site_id: ticket.siteId, zone_id: ticket.zoneId, country: ticket.country || undefined, device: ticket.device || undefined,
    };
    deps.emit({ id: randomUUID(), type: 'click', ts: now, engine: deps.engineId, bid_id: ticket.bidId, click_id: clickId, invalid: reason !== undefined, reason, charge_nano: charge, ...context });
    // Kept for conversions: the postback names the click by its id.
    await deps.redis.set(clickKey(clickId), JSON.stringify({ ...context, os: osOf(ua), browser: browserOf(ua), vertical: campaign?.vertical, ts: now, invalid: reason !== undefined }), 'EX', CLICK_TTL_S);
    const landing = creative.landing_url.replaceAll('{click_id}', clickId);
    return { status: 302, headers: { location: landing, 'cache-control': 'no-store', 'referrer-policy': 'no-referrer-when-downgrade' } };
  };
}
