import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeDemandTicket, encodeDemandTicket } from './demand-ticket.ts';
import type { DemandTicket } from './demand-ticket.ts';

const SECRET = 's'.repeat(40);
const ticket: DemandTicket = {
  auctionId: 'a-1',
  partnerId: 3,
  priceMicroCents: 4_001_000,
  issuedAt: 1_790_000_000,
  publisherId: 9,
  siteId: 2,
  zoneId: 5,
  surface: 'widget',
  country: 'us',
  device: 'desktop',
  os: 'linux',
  browser: 'chrome',
  source: 'news.example',
  integration: 'widget',
  format: 'native',
};

describe("a demand partner's impression ticket", () => {
  it("carries the viewer's OS and browser and the zone's source to the impression's event", () => {
    expect(decodeDemandTicket(SECRET, encodeDemandTicket(SECRET, ticket))).toEqual(ticket);
  });

  it('still reads a ticket signed before those fields existed (ten values), with them empty', () => {
    const old = [ticket.auctionId, 3, 4_001_000, ticket.issuedAt, 9, 2, 5, 'widget', 'us', 'desktop'];
    const payload = Buffer.from(JSON.stringify(old)).toString('base64url');
    const sig = createHmac('sha256', `demand:${SECRET}`).update(payload).digest('base64url').slice(0, 22);
    expect(decodeDemandTicket(SECRET, `d.${payload}.${sig}`)).toEqual({
      ...ticket,
      os: '',
      browser: '',
      source: '',
      integration: 'widget',
      format: '',
    });
  });

  it('reads a ticket signed before the format (14 values) with none, and refuses a format it does not know', () => {
    const signed = (values: unknown[]) => {
      const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
      return `d.${payload}.${createHmac('sha256', `demand:${SECRET}`).update(payload).digest('base64url').slice(0, 22)}`;
    };
    const before = [
      ticket.auctionId,
      3,
      4_001_000,
      ticket.issuedAt,
      9,
      2,
      5,
      'widget',
      'us',
      'desktop',
      'linux',
      'chrome',
      'news.example',
      'prebid',
    ];
    expect(decodeDemandTicket(SECRET, signed(before))).toEqual({ ...ticket, integration: 'prebid', format: '' });
    expect(decodeDemandTicket(SECRET, signed([...before, 'interstitial']))).toMatchObject({ format: 'interstitial' });
    expect(decodeDemandTicket(SECRET, signed([...before, 'billboard']))).toBeUndefined();
  });

  it('refuses another secret and a wrong number of values', () => {
    expect(decodeDemandTicket('x'.repeat(40), encodeDemandTicket(SECRET, ticket))).toBeUndefined();
    const payload = Buffer.from(JSON.stringify([1, 2, 3])).toString('base64url');
    const sig = createHmac('sha256', `demand:${SECRET}`).update(payload).digest('base64url').slice(0, 22);
    expect(decodeDemandTicket(SECRET, `d.${payload}.${sig}`)).toBeUndefined();
  });
});
