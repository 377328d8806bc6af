import type { PushSubscribe } from '@adnet/schemas/publisher';
import type { TicketSettlePorts } from './auction/settle.ts';
import type { ZoneConfig } from '@adnet/schemas/widget';
import type { AudienceMembers } from './frequency/audience-members.ts';
import type {
  AudienceRecorder,
  BidBudget,
  BudgetCheck,
  Counters,
  CreativePicker,
  DirectCharger,
  EventSink,
  FrequencyCaps,
  PopCaps,
  SpendRecorder,
} from './auction/ports.ts';
import type { EngineIndex } from './index/engine-index.ts';
import type { ZoneRequestRate } from './fraud/zone-request-rate.ts';
import type { PartnerLimiter } from './partners/partner-limiter.ts';
import type { SupplyDeps } from './demand/supply.ts';
import type { SaveOutcome, SubscriberAudience } from './push/push-store.ts';

/**
 * What the engine's routes share: built once in wiring/ports.ts, passed to every route. Storage is reached
 * only through the ports here. Workers take narrower ports of their own (push/push-sender.ts PushPorts).
 */
export interface EngineContext {
  /** The current index; undefined until the first snapshot is loaded. */
  index(): EngineIndex | undefined;
  budget: BidBudget & BudgetCheck & SpendRecorder;
  counters: Counters;
  /** Chooses which of a winning campaign's creatives serves (rotation/). */
  creatives: CreativePicker;
  /** Charges CPC clicks, and ads counted after their bid's hold lapsed, against budget and balance before they are billed. */
  direct: DirectCharger;
  emit: EventSink;
  /** Per-user counts of frequency-capped campaigns (frequency/). */
  caps: FrequencyCaps;
  /** Audience memberships (frequency/audience-members.ts): the watched campaigns' events, and `add` for the pixel. */
  audiences: AudienceRecorder & Pick<AudienceMembers, 'add'>;
  limiter: PartnerLimiter;
  /** The supply side: our zones' impressions auctioned to demand partners too (demand/); absent: our campaigns alone. */
  demand?: SupplyDeps;
  /** One pop per visitor and pop zone within the zone's cap (direct links, popunders). */
  pops: PopCaps;
  /** Counts each zone's ad requests per address and fingerprint (invalid traffic past the limits). */
  zoneRequests: ZoneRequestRate;
  /** The cabinet's live-preview tokens (routes/preview.ts): the subid a token may preview, undefined when unknown or expired. */
  previews: { zoneOf(token: string): Promise<string | undefined> };
  /** Who we are on an ad's "About this ad" page: our domain as sellers.json names us, and where to report an ad. */
  network: { domain: string; contact: string | undefined };
  /** Signs tickets (win notices, pixels, click links). */
  secret: string;
  baseUrl: string;
  engineId: string;
  auctionTimeoutMs: number;
  /** Largest bid request body, as sent and (gzip) once inflated. */
  maxBidBodyBytes: number;
  widget: {
    /** The widget bundle, built once per engine. */
    bundle: string;
    zoneScript(bundle: string, config: ZoneConfig): string;
  };
  push: {
    serviceHosts: readonly string[];
    vapidPublicKey: string;
    /** Adds or renews a subscriber within the stored-subscription caps, with the audience its request showed. */
    save(zone: string, subscription: PushSubscribe['subscription'], audience: SubscriberAudience): Promise<SaveOutcome>;
    /** Forgets a subscription on one zone or on all (idempotent): the zones it was removed from. */
    remove(endpoint: string, zone?: string): Promise<string[]>;
    /** Our service worker's source, built for this engine's base URL (widget/src/service-worker.ts). */
    worker: string;
  };
  /** Parsing plus auctions of one bid request, in seconds. */
  observeAuction?: (seconds: number) => void;
  /** Monotonic milliseconds, for the auction deadline (performance.now unless a test says otherwise). */
  now?: () => number;
}

/** What settling a counted ticket needs from the engine (auction/settle.ts). */
export const settlePorts = (ctx: EngineContext): TicketSettlePorts => ({
  spend: ctx.budget,
  emit: ctx.emit,
  direct: ctx.direct,
  caps: ctx.caps,
  audiences: ctx.audiences,
  campaign: (id) => ctx.index()?.campaigns.get(id),
});
