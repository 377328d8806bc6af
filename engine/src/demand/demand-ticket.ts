import { timingSafeEqual } from 'node:crypto';
import { INTEGRATIONS } from '@adnet/schemas/events';
import type { Integration } from '@adnet/schemas/events';
import { CAMPAIGN_FORMATS } from '@adnet/schemas/formats';
import type { CampaignFormat } from '@adnet/schemas/api';
import { hmacSha256Base64url } from '../tracking/hmac.ts';

/** Where a partner's ad is shown: a page (widget), a player (VAST) or a push notification. */
export type DemandSurface = 'widget' | 'vast' | 'push';

/** The last segment of our click link for a partner's ad (the ticket is signed: it only fills the click route's shape). */
export const DEMAND_CLICK_SEGMENT = 'dsp';

/** Our click link for a partner's ad we render (native card, push notification): one shape for every surface (routes/demand.ts demandClick). */
export const demandClickLink = (baseUrl: string, token: string): string =>
  `${baseUrl}/c/${token}/${DEMAND_CLICK_SEGMENT}`;

/** A partner's won impression, carried (signed) in our impression tracker and markup links. */
export interface DemandTicket {
  /** The auction id (`${AUCTION_ID}`), one per impression. */
  auctionId: string;
  partnerId: number;
  /** The clearing price, CPM micro-cents. */
  priceMicroCents: number;
  /** Seconds since the epoch. */
  issuedAt: number;
  publisherId: number;
  siteId: number;
  zoneId: number;
  surface: DemandSurface;
  country: string;
  device: string;
  /** For the impression's event: the viewer's OS and browser families and the zone's `source` ('' when unknown). */
  os: string;
  browser: string;
  source: string;
  /** How the request reached us, for the events' `integration`; a ticket signed before it existed reads its surface's. */
  integration: Integration;
  /** The zone's format, the events' `format` (as served); '' in a ticket signed before it existed. */
  format: CampaignFormat | '';
}

// `d.` cannot begin a BidTicket (base64url has no dot), so one route tells the two apart.
const PREFIX = 'd.';
// The same digest as createHmac's, without its key schedule per ticket (tracking/hmac.ts).
const sign = (secret: string, payload: string) => hmacSha256Base64url(`demand:${secret}`, payload).slice(0, 22);

export function encodeDemandTicket(secret: string, t: DemandTicket): string {
  const values = [
    t.auctionId,
    t.partnerId,
    t.priceMicroCents,
    t.issuedAt,
    t.publisherId,
    t.siteId,
    t.zoneId,
    t.surface,
    t.country,
    t.device,
    t.os,
    t.browser,
    t.source,
    t.integration,
    t.format,
  ];
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${PREFIX}${payload}.${sign(secret, payload)}`;
}

export const isDemandToken = (token: string): boolean => token.startsWith(PREFIX);

export function decodeDemandTicket(secret: string, token: string): DemandTicket | undefined {
  if (!token.startsWith(PREFIX) || token.length > 1024) return undefined;
  const rest = token.slice(PREFIX.length);
  const dot = rest.indexOf('.');
  if (dot <= 0) return undefined;
  const payload = rest.slice(0, dot);
  const given = Buffer.from(rest.slice(dot + 1));
  const expected = Buffer.from(sign(secret, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown[];
    // Ten fields in tickets signed before os, browser and source joined them (an hour at most), 13 before the
    // integration, 14 before the format.
    if (!Array.isArray(v) || (v.length !== 10 && v.length !== 13 && v.length !== 14 && v.length !== 15))
      return undefined;
    const [
      auctionId,
      partnerId,
      priceMicroCents,
      issuedAt,
      publisherId,
      siteId,
      zoneId,
      surface,
      country,
      device,
      os = '',
      browser = '',
      source = '',
      integration = surface,
      format = '',
    ] = v as [
      string,
      number,
      number,
      number,
      number,
      number,
      number,
      DemandSurface,
      string,
      string,
      string?,
      string?,
      string?,
      Integration?,
      (CampaignFormat | '')?,
    ];
    if (!INTEGRATIONS.includes(integration)) return undefined;
    if (format !== '' && !CAMPAIGN_FORMATS.includes(format)) return undefined;
    return {
      auctionId,
      partnerId,
      priceMicroCents,
      issuedAt,
      publisherId,
      siteId,
      zoneId,
      surface,
      country,
      device,
      os,
      browser,
      source,
      integration,
      format,
    };
  } catch {
    return undefined;
  }
}
