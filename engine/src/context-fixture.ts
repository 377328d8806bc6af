import type { EngineContext } from './context.ts';
import type { EngineRequest } from './http/adapt.ts';
import type { EngineIndex } from './index/engine-index.ts';
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
    counters: { countOnce: unused, countedAt: unused, saveClick: unused, clicksThisMinute: unused },
    clicks: { charge: unused },
    limiter: new PartnerLimiter(1),
    emit: () => undefined,
    secret: 's'.repeat(40),
    baseUrl: 'http://127.0.0.1:8080',
    engineId: 'test',
    auctionTimeoutMs: 200,
    widget: { bundle: '', zoneScript: unused },
    push: { serviceHosts: [], vapidPublicKey: '', save: unused },
    ...over,
  };
}

/** A partner's bid request as the adapter hands it to the bid route. */
export const bidRequestOf = (body: Buffer): EngineRequest => ({
  method: 'post',
  path: '/openrtb/bid',
  query: '',
  ip: '127.0.0.1',
  headers: { 'x-openrtb-version': '2.5' },
  params: [],
  body,
  requestId: 'fixture',
});
