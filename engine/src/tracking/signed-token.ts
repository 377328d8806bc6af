import { createHmac, timingSafeEqual } from 'node:crypto';

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
}

const SIG_CHARS = 22; // 132 bits of HMAC-SHA256

function sign(secret: string, payload: string): string {
  return createHmac('sha256', secret).update(payload).digest('base64url').slice(0, SIG_CHARS);
}

export function encodeTicket(secret: string, t: BidTicket): string {
  const payload = Buffer.from(
    JSON.stringify([
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
    ]),
  ).toString('base64url');
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
    if (!Array.isArray(v) || v.length !== 13) return undefined;
    const [bidId, campaignId, advertiserId, creativeId, priceMicroCents, issuedAt, engine, partnerId, country, device, publisherId, siteId, zoneId] = v as [
      string,
      number,
      number,
      number,
      number,
      number,
      string,
      number,
      string,
      string,
      number,
      number,
      number,
    ];
    return { bidId, campaignId, advertiserId, creativeId, priceMicroCents, issuedAt, engine, partnerId, country, device, publisherId, siteId, zoneId };
  } catch {
    return undefined;
  }
}
