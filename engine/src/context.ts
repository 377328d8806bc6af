import type { PushSubscribe } from '@adnet/schemas/publisher';
import type { ZoneConfig } from '@adnet/schemas/widget';
import type { BidBudget, ClickCharger, Counters, EventSink, SpendRecorder } from './auction/ports.ts';
import type { EngineIndex } from './index/engine-index.ts';
import type { PartnerLimiter } from './partners/partner-limiter.ts';
import type { SaveOutcome } from './push/push-store.ts';

/**
 * What the engine's routes and workers share: built once in createEngine,
 * passed to every route. Storage is reached only through the ports here.
 */
export interface EngineContext {
  /** The current index; undefined until the first snapshot is loaded. */
  index(): EngineIndex | undefined;
  budget: BidBudget & SpendRecorder;
  counters: Counters;
  /** Charges CPC clicks against budget and balance before they are billed. */
  clicks: ClickCharger;
  emit: EventSink;
  limiter: PartnerLimiter;
  /** Signs tickets (win notices, pixels, click links). */
  secret: string;
  baseUrl: string;
  engineId: string;
  auctionTimeoutMs: number;
  widget: {
    /** The widget bundle, built once per engine. */
    bundle: string;
    zoneScript(bundle: string, config: ZoneConfig): string;
  };
  push: {
    serviceHosts: readonly string[];
    vapidPublicKey: string;
    /** Adds or renews a subscriber within the stored-subscription caps. */
    save(zone: string, subscription: PushSubscribe['subscription']): Promise<SaveOutcome>;
  };
  /** Parsing plus auctions of one bid request, in seconds. */
  observeAuction?: (seconds: number) => void;
  /** Monotonic milliseconds, for the auction deadline (performance.now unless a test says otherwise). */
  now?: () => number;
}
