import { createHmac, timingSafeEqual } from 'node:crypto';
import { CAMPAIGN_FORMATS } from '@adnet/schemas/api';
import type { CampaignFormat } from '@adnet/schemas/api';

/** What a win notice or impression pixel needs to know about its bid, carried in the URL and signed. */
export interface BidTicket {
  bidId: string;
  campaignId: number;
  advertiserId: number;
  creativeId: number;
  /** Our bid, CPM micro-cents: the most a win may charge. */
  priceMicroCents: number;
  /** Seconds since the epoch. */
  issuedAt: number;
  /** Engine whose budget hold covered the bid. */
  engine: string;
  partnerId: number;
  /** Where the impression happened, so win and impression events carry it to the statistics. */
  country: string;
  device: string;
  /** Our inventory the impression was on, when the request named it (0 otherwise). */
  publisherId: number;
  siteId: number;
  zoneId: number;
  /** Where the ad was served: a partner's bid (`openrtb`), our widget (`widget`), a VAST zone (`vast`) or a push (`push`). */
  surface: TicketSurface;
  /** The viewer's address, cut to its network (IPv4 /24, IPv6 /48): '' when unknown. */
  ipPrefix: string;
  /** A short hash of the viewer's user agent: '' when unknown. */
  uaHash: string;
  /** An OpenRTB `test: 1` request: answered as usual, never charged. */
  test: boolean;
  /** The viewer's OS and browser families (schemas/src/api.ts), for the statistics and conversions: '' when unknown. */
  os: string;
  browser: string;
  /** The user's key (frequency/), when the campaign has a frequency cap and the request named a user; '' otherwise. */
  user: string;
  /** Where the ad ran, by name (inventory/source.ts), for the statistics' `source`: '' when unknown or signed before it existed. */
  source: string;
  /**
   * What a click on a CPC ad costs, micro-cents: the bid times the bid adjustment the auction applied
   * (docs/delivery.md). 0 when no adjustment applied (or a CPM ad): the campaign's bid.
   */
  clickMicroCents: number;
  /**
   * The format the ad was served as (the campaign's, which its creative and the zone share): '' for a
   * ticket signed before tickets carried it.
   */
  format: CampaignFormat | '';
}

export const TICKET_SURFACES = ['openrtb', 'widget', 'vast', 'push'] as const;
export type TicketSurface = (typeof TICKET_SURFACES)[number];

const SIG_CHARS = 22; // 132 bits of HMAC-SHA256

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, SIG_CHARS);
}

/** The order of a ticket's fields on the wire: a JSON array keeps links short. */
const FIELDS = [
  'bidId',
  'campaignId',
  'advertiserId',
  'creativeId',
  'priceMicroCents',
  'issuedAt',
  'engine',
  'partnerId',
  'country',
  'device',
  'publisherId',
  'siteId',
  'zoneId',
  'surface',
  'ipPrefix',
  'uaHash',
  'test',
  'os',
  'browser',
  'user',
  // Appended last: tickets signed before them (every shorter length above) decode with them empty.
  'source',
  'clickMicroCents',
  'format',
] as const satisfies readonly (keyof BidTicket)[];

export function encodeTicket(secret: string, t: BidTicket): string {
  // In FIELDS order, written out: this runs for every bid and ad served.
  const values = [
    t.bidId,
    t.campaignId,
    t.advertiserId,
    t.creativeId,
    t.priceMicroCents,
    t.issuedAt,
    t.engine,
    t.partnerId,
    t.country,
    t.device,
    t.publisherId,
    t.siteId,
    t.zoneId,
    t.surface,
    t.ipPrefix,
    t.uaHash,
    t.test ? 1 : 0,
    t.os,
    t.browser,
    t.user,
    t.source,
    t.clickMicroCents,
    t.format,
  ];
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${sign(secret, payload)}`;
}

/** The ticket, or undefined when it is malformed or its signature is wrong. */
export function decodeTicket(secret: string, token: string): BidTicket | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 1024) return undefined;
  const payload = token.slice(0, dot);
  const given = Buffer.from(token.slice(dot + 1));
  const expected = Buffer.from(sign(secret, payload));
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const v = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(v)) return undefined;
    const values = v as unknown[];
    // Tickets signed before they carried facts (13 fields), or before OS and browser (17), stay usable until they age out.
    if (values.length === 13) values.push(values[7] ? 'openrtb' : 'widget', '', '', 0);
    // Signed before OS and browser (17 fields), or before frequency caps (19): the fields they lack are empty.
    if (values.length === 17) values.push('', '');
    if (values.length === 19) values.push('');
    // Signed before the source and bid adjustments (20 fields): no source, the campaign's bid.
    if (values.length === 20) values.push('', 0);
    // Signed before the format (22 fields): none named.
    if (values.length === 22) values.push('');
    if (values.length !== FIELDS.length || !TICKET_SURFACES.includes(values[13] as TicketSurface)) return undefined;
    if (values[22] !== '' && !CAMPAIGN_FORMATS.includes(values[22] as CampaignFormat)) return undefined;
    // The payload is ours (its signature checked above): the fields are what encodeTicket wrote.
    const t: Record<string, unknown> = {};
    FIELDS.forEach((k, i) => (t[k] = values[i]));
    t.test = t.test === 1;
    return t as unknown as BidTicket;
  } catch {
    return undefined;
  }
}
