import type { BrowserFamily, OsFamily } from '@adnet/schemas/api';
import type { ConnectionType, DeviceType } from '@adnet/schemas/openrtb';
import type { Integration, NoBidReason } from '@adnet/schemas/events';
import type { StoredSite } from '@adnet/schemas/publisher';
import type { VastVersion } from '@adnet/schemas/vast';
import type { Inventory } from '../events/make-event.ts';
import type { DealEntry, EngineIndex, ZoneEntry } from '../index/engine-index.ts';
import type { InventoryControls } from '../index/inventory-controls.ts';
import type { RequestFlood } from '../fraud/zone-request-rate.ts';
import type { TicketSurface } from '../tracking/signed-token.ts';
import type { NativeAsset } from '../openrtb/native-request.ts';
import type { Viewer } from './ports.ts';
import type { PrivacyBar } from '../openrtb/privacy.ts';

// The request and impression contexts the filters read (filter.ts): types only, apart from the builders
// (request-context.ts), which run the request filters; so the filters' types do not import their runner.

export type { Inventory };

/** Where a browser request comes from, as far as the engine can tell from its headers. */
export interface Visitor {
  country: string | undefined;
  language: string | undefined;
  device: DeviceType | undefined;
  os: OsFamily | undefined;
  browser: BrowserFamily | undefined;
  /** The viewer's network and user agent, as tickets keep them (see tracking/viewer.ts); '' when unknown. */
  ipPrefix: string;
  uaHash: string;
  /** The user agent is a bot's (see fraud/bot-user-agent.ts). */
  bot: boolean;
  /** The host of the page the browser says it is on (fraud/page-origin.ts); undefined when it says none. */
  pageHost?: string | undefined;
  /** The request says GDPR applies without consent (openrtb/privacy.ts gdprWithoutConsent): no user-level processing. */
  privacy?: PrivacyBar | undefined;
}

/** What every auction of one request shares: built once, read by the filters and by serve. */
export interface RequestContext {
  /** The index snapshot every auction of this request reads. */
  index: EngineIndex;
  /** Milliseconds since the epoch when the request was taken. */
  ts: number;
  /** The OpenRTB request id; undefined for our own zones. */
  auctionId: string | undefined;
  /** 0 for our own zones. */
  partnerId: number;
  /** Lower-case ISO alpha-2. */
  country: string | undefined;
  language: string | undefined;
  device: string | undefined;
  os: OsFamily | undefined;
  browser: BrowserFamily | undefined;
  /** OpenRTB `device.connectiontype`; our own zones do not know it. */
  connection: ConnectionType | undefined;
  /** `cur` allows USD (or is absent). */
  usd: boolean;
  bcat: readonly string[] | undefined;
  badv: readonly string[] | undefined;
  /** One of our sites, when `site.id` names it. */
  ownSite: StoredSite | undefined;
  /** `site.domain`, else `app.domain`, as the partner sent it. */
  siteDomain: string | undefined;
  /** Exchange traffic's `source` (inventory/source.ts); '' for our own zones, whose source is their site's. */
  source: string;
  /** The first request-scope filter that rejects the request: every impression's no-bid reason. */
  rejected: NoBidReason | undefined;
  /** Where the ad will be shown, and to whom: kept in every ticket of the request. */
  surface: TicketSurface;
  /** How the request reached us (the statistics' `integration`): its surface's, except Prebid's (`/hb/bid`). */
  integration: Integration;
  ipPrefix: string;
  uaHash: string;
  /** OpenRTB `test: 1`: answered as usual, never charged. */
  test: boolean;
  /** General invalid traffic by user agent. */
  bot: boolean;
  /** Our own zones: the page the browser says it is on, and whether it is past a zone's request limit. */
  pageHost: string | undefined;
  flood: RequestFlood | undefined;
  /** The user, for frequency caps; undefined when the request names none, or its privacy signals bar user-level processing. */
  viewer: Viewer | undefined;
  /** The OpenRTB privacy signal that bars user-level processing (openrtb/privacy.ts); undefined for none, and for our own zones. */
  privacy: PrivacyBar | undefined;
}

/** One of the imp's `pmp.deals` we hold for this partner: the floor is ours, the request's and our publisher's, whichever is highest. */
export interface MatchedDeal {
  id: string;
  floorMicroCents: number;
  /** The deal's index entry: its own ranked candidate lists. */
  entry: DealEntry;
}

/** One impression: what the imp and candidate filters read. */
export interface ImpContext {
  impId: string | undefined;
  /** An OpenRTB native impression's requested assets (openrtb/native-request.ts); undefined: our defaults. */
  nativeAssets: readonly NativeAsset[] | undefined;
  /** The slots the impression accepts (see index/slots.ts). */
  slots: readonly string[];
  /**
   * The VAST version a video answer is written in: the highest the OpenRTB imp's `video.protocols` allow
   * (openrtb/vast-version.ts), or what a zone's VAST URL asks (`?v=`); undefined for an imp without video
   * we can play, and for other zones.
   */
  vastVersion: VastVersion | undefined;
  floorMicroCents: number;
  /** `bidfloorcur`, when given. */
  floorCurrency: string | undefined;
  /** Our zone, when `imp.tagid` names one (or the zone a widget asked for). */
  zone: ZoneEntry | undefined;
  inventory: Inventory;
  /** The publisher's controls: the zone's, else those of our site the request names (index/inventory-controls.ts). */
  controls: InventoryControls | undefined;
  // Copied from the request so candidate filters read one object in the hot loop.
  /** Lower-case ISO alpha-2, for bid adjustments by country. */
  country: string | undefined;
  language: string | undefined;
  device: string | undefined;
  os: OsFamily | undefined;
  browser: BrowserFamily | undefined;
  connection: ConnectionType | undefined;
  bcat: readonly string[] | undefined;
  badv: readonly string[] | undefined;
  /** The request's time, for the campaigns' schedules. */
  ts: number;
  viewer: Viewer | undefined;
  /** The request's privacy signals bar user-level processing: frequency-capped campaigns sit it out. */
  restricted: boolean;
  /** The imp's deals we hold for this partner, best floor first; empty for most requests. */
  deals: readonly MatchedDeal[];
  /** `imp.pmp.private_auction: 1`: only deal bids. */
  privateAuction: boolean;
  /** `imp.video.minduration` / `maxduration`, seconds; undefined when not said (0 for maxduration means not said too). */
  minDuration: number | undefined;
  maxDuration: number | undefined;
}
