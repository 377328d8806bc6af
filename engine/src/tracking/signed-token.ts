import { CAMPAIGN_FORMATS } from '@adnet/schemas/api';
import type { CampaignFormat } from '@adnet/schemas/api';
import { INTEGRATIONS } from '@adnet/schemas/events';
import type { Integration } from '@adnet/schemas/events';
import { hmacSha256Base64url } from './hmac.ts';

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
  /** The user's key (frequency/), when the campaign has a frequency cap or an audience watches it and the request named a user; '' otherwise. */
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
  /** How the ad was served, for the statistics' `integration`: a ticket signed before it existed reads its surface's. */
  integration: Integration;
}

export const TICKET_SURFACES = ['openrtb', 'widget', 'vast', 'push'] as const;
export type TicketSurface = (typeof TICKET_SURFACES)[number];

const SIG_CHARS = 22; // 132 bits of HMAC-SHA256

const sign = (secret: string, payload: string): string => hmacSha256Base64url(secret, payload).slice(0, SIG_CHARS);

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
  'integration',
] as const satisfies readonly (keyof BidTicket)[];

/** Room for one ticket's JSON or payload; grown for a longer one (UTF-8: at most 3 bytes per UTF-16 unit). */
let scratch = Buffer.allocUnsafe(2048);

/** Compares a signature without an early exit: how much of it matches must not show in the time taken. */
function sameSignature(given: string, expected: string): boolean {
  if (given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= given.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}

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
    t.integration,
  ];
  const json = JSON.stringify(values);
  // Encoded through one reused buffer: no Buffer per ticket between the JSON and its base64url.
  if (3 * json.length > scratch.length) scratch = Buffer.allocUnsafe(3 * json.length);
  const payload = scratch.toString('base64url', 0, scratch.write(json, 'utf8'));
  return `${payload}.${sign(secret, payload)}`;
}

/** The ticket, or undefined when it is malformed or its signature is wrong. */
export function decodeTicket(secret: string, token: string): BidTicket | undefined {
  const dot = token.indexOf('.');
  if (dot <= 0 || token.length > 1024) return undefined;
  const payload = token.slice(0, dot);
  if (!sameSignature(token.slice(dot + 1), sign(secret, payload))) return undefined;
  try {
    // base64url never decodes to more bytes than it has characters (the token is at most 1 024 long, the scratch 2 048).
    const v = JSON.parse(scratch.toString('utf8', 0, scratch.write(payload, 'base64url'))) as unknown;
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
    // Signed before the integration (23 fields): its surface's, which is what every surface but Prebid's is.
    if (values.length === 23) values.push(values[13]);
    if (values.length !== FIELDS.length || !TICKET_SURFACES.includes(values[13] as TicketSurface)) return undefined;
    if (values[22] !== '' && !CAMPAIGN_FORMATS.includes(values[22] as CampaignFormat)) return undefined;
    if (!INTEGRATIONS.includes(values[23] as Integration)) return undefined;
    // The payload is ours (its signature checked above): the fields are what encodeTicket wrote.
    // One literal in FIELDS order: an object of one shape, where 23 keyed stores made a slow dictionary.
    return {
      bidId: values[0],
      campaignId: values[1],
      advertiserId: values[2],
      creativeId: values[3],
      priceMicroCents: values[4],
      issuedAt: values[5],
      engine: values[6],
      partnerId: values[7],
      country: values[8],
      device: values[9],
      publisherId: values[10],
      siteId: values[11],
      zoneId: values[12],
      surface: values[13],
      ipPrefix: values[14],
      uaHash: values[15],
      test: values[16] === 1,
      os: values[17],
      browser: values[18],
      user: values[19],
      source: values[20],
      clickMicroCents: values[21],
      format: values[22],
      integration: values[23],
    } as BidTicket;
  } catch {
    return undefined;
  }
}
