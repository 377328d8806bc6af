import type { EngineContext } from './context.ts';
import type { EngineRequest } from './http/adapt.ts';
import type { EngineIndex } from './index/engine-index.ts';
import type { Redis } from 'ioredis';
import { CreativeRotation } from './rotation/creative-rotation.ts';
import { FrequencyCapCache } from './frequency/frequency-caps.ts';
import { ZoneRequestRate } from './fraud/zone-request-rate.ts';
import { PartnerLimiter } from './partners/partner-limiter.ts';

const unused = (): never => {
  throw new Error('not on the bid path');
};

/**
 * An engine context for the bid path alone (unit tests, the micro-benchmark): budgets always have
 * room, events go to `emit`, and every port the bid path must not touch throws.
 */
export function bidPathContext(index: EngineIndex, over: Partial<EngineContext> = {}): EngineContext {
  return {
    index: () => index,
    budget: { tryTake: () => true, giveBack: () => undefined, recordSpend: unused },
    counters: { countOnce: unused, countedAt: unused, saveClick: unused, countClick: unused },
    direct: { charge: unused },
    // The real picker (no Redis until a refresh): what the hot path pays for choosing a creative.
    creatives: new CreativeRotation({ redis: undefined as unknown as Redis, index: () => index }),
    limiter: new PartnerLimiter(1),
    zoneRequests: new ZoneRequestRate({ perAddressPerMinute: 600, perFingerprintPerMinute: 30, maxKeys: 1_000 }),
    emit: () => undefined,
    // The real caches over a store that holds nothing: what the hot path pays for caps.
    caps: new FrequencyCapCache({ store: { read: () => Promise.resolve(new Map()), count: () => Promise.resolve() } }),
    secret: 's'.repeat(40),
    baseUrl: 'http://127.0.0.1:8080',
    engineId: 'test',
    auctionTimeoutMs: 200,
    maxBidBodyBytes: 256 * 1024,
    widget: { bundle: '', zoneScript: unused },
    push: { serviceHosts: [], vapidPublicKey: '', save: unused, remove: unused, worker: '' },
    ...over,
  };
}

/** A partner's bid request as the adapter hands it to the bid route. */
export const bidRequestOf = (body: Buffer): EngineRequest => ({
  method: 'post',
  path: '/openrtb/bid',
  query: '',
  ip: '127.0.0.1',
  viaProxy: false,
  headers: { 'x-openrtb-version': '2.5' },
  params: [],
  body,
  requestId: 'fixture',
});
