import type { EngineConfig } from '@adnet/schemas/config';
import type { EngineEvent } from '@adnet/schemas/events';
import type { Redis } from '@adnet/runtime/redis-connect';
import { previewKey } from '@adnet/schemas/redis-keys';
import { buildServiceWorker, buildWidget, zoneScript } from '@adnet/widget/build';
import { RedisDirectCharger } from '../budget/direct-charges.ts';
import type { EngineContext } from '../context.ts';
import { CircuitBreaker } from '../demand/breaker.ts';
import { DemandStats } from '../demand/demand-stats.ts';
import { DspClient } from '../demand/dsp-client.ts';
import { Notifier, redisNoticeLedger } from '../demand/notices.ts';
import type { SupplyDeps } from '../demand/supply.ts';
import { redisWinStore } from '../demand/win-store.ts';
import { ZoneRequestRate } from '../fraud/zone-request-rate.ts';
import { FrequencyCapCache } from '../frequency/frequency-caps.ts';
import { AudienceMembers } from '../frequency/audience-members.ts';
import { membershipsOf } from '../index/audience-index.ts';
import { RedisAudienceStore } from '../store/audience-store.ts';
import { RedisFrequencyStore } from '../frequency/redis-frequency-store.ts';
import type { EngineMetrics } from '../observability/engine-metrics.ts';
import { PartnerLimiter } from '../partners/partner-limiter.ts';
import type { PushPorts } from '../push/push-sender.ts';
import { removeSubscription, saveSubscription } from '../push/push-store.ts';
import { RedisCounters } from '../store/counters.ts';
import { RedisPopCaps } from '../store/pop-caps.ts';
import type { EngineStores } from './stores.ts';

/** The supply side (demand/): kept-alive connections to demand partners, each behind its own breaker and QPS. */
export interface SupplySide {
  deps: SupplyDeps;
  /** The connections themselves, closed at stop once the last notices are out. */
  dsp: DspClient;
}

export function supplySide(
  config: Pick<EngineConfig, 'server' | 'processes' | 'demand'>,
  redis: Redis,
  secret: string,
  budget: SupplyDeps['budget'],
): SupplySide {
  const dsp = new DspClient({
    allowLoopback: config.demand.allowLoopback,
    onLate: (pid) => deps.stats.add(pid, 'late'),
  });
  const deps: SupplyDeps = {
    client: dsp,
    breaker: new CircuitBreaker(),
    limiter: new PartnerLimiter(config.processes.engineCount),
    stats: new DemandStats(),
    notifier: new Notifier(redisNoticeLedger(redis), dsp),
    wins: redisWinStore(redis),
    secret,
    baseUrl: config.server.adBaseUrl,
    // The supply chain names us by the public site's host, as sellers.json and our publishers' ads.txt do.
    sellerDomain: new URL(config.server.baseUrl).hostname,
    budget,
    now: () => performance.now(),
  };
  return { deps, dsp };
}

/**
 * The ports over the engine's stores: the routes' context, and the push sender's narrower set made of the
 * same objects (one counter, one event sink), so a notification counts and emits as a page's ad does.
 */
export function enginePorts(o: {
  config: Pick<EngineConfig, 'server' | 'processes' | 'engine' | 'push'>;
  engineId: string;
  redis: Redis;
  secret: string;
  stores: EngineStores;
  metrics: EngineMetrics;
  supply: SupplyDeps;
  vapidPublicKey: string;
  onError: (what: string) => (err: unknown) => void;
}): { ctx: EngineContext; push: PushPorts } {
  const { engineId, redis, secret, metrics, supply } = o;
  const { server, processes, engine } = o.config;
  const { budget, rotation, zoneSpend, events, mirror } = o.stores;
  const emit = (e: EngineEvent) => {
    metrics.event(e);
    rotation.observe(e);
    zoneSpend.observe(e);
    events.push(e);
  };
  const index = () => mirror.index;
  const counters = new RedisCounters(redis);
  const members = new AudienceMembers({ store: new RedisAudienceStore(redis), onError: o.onError('audiences') });
  const ctx: EngineContext = {
    index,
    budget,
    counters,
    creatives: rotation,
    direct: new RedisDirectCharger(redis, o.stores.spentMarks),
    emit,
    caps: new FrequencyCapCache({
      store: new RedisFrequencyStore(redis, engineId),
      onError: o.onError('frequency-caps'),
      members,
    }),
    audiences: {
      counted: (event, ad, now) =>
        members.add(ad.user, membershipsOf(index()?.audiences[event].get(ad.campaignId), now), now),
      add: (userKey, memberships, now) => members.add(userKey, memberships, now),
    },
    limiter: new PartnerLimiter(processes.engineCount),
    pops: new RedisPopCaps(redis),
    // 200 000 keys: a few tens of megabytes at most, whatever a flood of new addresses does.
    zoneRequests: new ZoneRequestRate({ ...engine.zoneRequests, maxKeys: 200_000 }),
    previews: { zoneOf: async (token) => (await redis.get(previewKey(token))) ?? undefined },
    // As sellers.json and our publishers' ads.txt name us: the public site's host.
    network: { domain: new URL(server.baseUrl).hostname, contact: server.networkContact },
    secret,
    // Ad and tracking links: the separate cookieless origin when one is configured.
    baseUrl: server.adBaseUrl,
    engineId,
    auctionTimeoutMs: engine.auctionTimeoutMs,
    maxBidBodyBytes: engine.maxBidBodyBytes,
    // Built once per engine: a zone's script is this bundle plus its settings.
    widget: { bundle: buildWidget(), zoneScript },
    push: {
      serviceHosts: o.config.push.serviceHosts,
      vapidPublicKey: o.vapidPublicKey,
      save: (zone, sub, audience) => saveSubscription(redis, zone, sub, { audience }),
      remove: (endpoint, zone) => removeSubscription(redis, endpoint, zone),
      worker: buildServiceWorker(server.adBaseUrl),
    },
    observeAuction: (seconds) => metrics.auctionTime(seconds),
    demand: supply,
  };
  const push: PushPorts = {
    index,
    budget,
    counters,
    creatives: rotation,
    emit,
    demand: supply,
    secret,
    baseUrl: server.adBaseUrl,
    engineId,
    auctionTimeoutMs: engine.auctionTimeoutMs,
  };
  return { ctx, push };
}
