import { describe, expect, it } from 'vitest';
import { decodeTicket, encodeTicket } from './signed-token.ts';
import type { BidTicket } from './signed-token.ts';

const secret = 'x'.repeat(40);
const ticket: BidTicket = {
  bidId: 'b-1',
  campaignId: 7,
  advertiserId: 3,
  creativeId: 9,
  priceMicroCents: 150_000,
  issuedAt: 1_800_000_000,
  engine: 'e1',
  partnerId: 2,
  country: 'us',
  device: 'desktop',
  publisherId: 4,
  siteId: 5,
  zoneId: 6,
};

describe('signed bid tickets', () => {
  it('round-trips', () => {
    expect(decodeTicket(secret, encodeTicket(secret, ticket))).toEqual(ticket);
  });
  it('refuses tampering, other secrets and garbage', () => {
    const token = encodeTicket(secret, ticket);
    const [payload, sig] = token.split('.') as [string, string];
    const forged = Buffer.from(JSON.stringify(['b-1', 7, 3, 9, 99_999_999, 1_800_000_000, 'e1', 2, 'us', 'desktop', 4, 5, 6])).toString('base64url');
    expect(decodeTicket(secret, `${forged}.${sig}`)).toBeUndefined();
    expect(decodeTicket('y'.repeat(40), token)).toBeUndefined();
    expect(decodeTicket(secret, `${payload}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    for (const junk of ['', '.', 'abc', `${payload}.`, '.'.repeat(5000)]) expect(decodeTicket(secret, junk)).toBeUndefined();
  });
});
