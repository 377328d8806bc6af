import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeTicket, encodeTicket } from './signed-token.ts';
import type { BidTicket } from './signed-token.ts';
import { ticketFixture } from '../../test/fixtures/ticket-fixture.ts';

const secret = 'x'.repeat(40);
// Every field away from the fixture's defaults that the codec must carry: a partner, OpenRTB, a user, a long source.
const ticket: BidTicket = ticketFixture({
  partnerId: 2,
  surface: 'openrtb',
  browser: 'samsung',
  user: 'k0FhbGxvIHdvcmxk',
  source: 'news.example.co.uk',
  format: 'video',
  integration: 'openrtb',
});
const signed = (values: unknown[]) => {
  const payload = Buffer.from(JSON.stringify(values)).toString('base64url');
  return `${payload}.${createHmac('sha256', secret).update(payload).digest('base64url').slice(0, 22)}`;
};

describe('signed bid tickets', () => {
  it('round-trips', () => {
    expect(decodeTicket(secret, encodeTicket(secret, ticket))).toEqual(ticket);
    const test = { ...ticket, surface: 'push' as const, ipPrefix: '', uaHash: '', test: true };
    expect(decodeTicket(secret, encodeTicket(secret, test))).toEqual(test);
  });
  it('reads a ticket signed before tickets carried their facts', () => {
    const old = signed(['b-1', 7, 3, 9, 150_000, 1_800_000_000, 'e1', 2, 'us', 'desktop', 4, 5, 6]);
    expect(decodeTicket(secret, old)).toEqual({
      ...ticket,
      ipPrefix: '',
      uaHash: '',
      os: '',
      browser: '',
      user: '',
      source: '',
      format: '',
    });
  });
  it('reads a ticket signed before tickets carried the OS and browser', () => {
    const old = signed([
      'b-1',
      7,
      3,
      9,
      150_000,
      1_800_000_000,
      'e1',
      2,
      'us',
      'desktop',
      4,
      5,
      6,
      'vast',
      '203.0.113.0',
      'abcd1234',
      1,
    ]);
    expect(decodeTicket(secret, old)).toEqual({
      ...ticket,
      surface: 'vast',
      integration: 'vast',
      test: true,
      os: '',
      browser: '',
      user: '',
      source: '',
      format: '',
    });
  });
  it('reads a ticket signed before tickets named the user of a capped campaign', () => {
    const { user: _u, source: _s, clickMicroCents: _c, format: _f, integration: _i, ...before } = ticket;
    expect(decodeTicket(secret, signed(Object.values(before).map((v) => (v === false ? 0 : v))))).toEqual({
      ...ticket,
      user: '',
      source: '',
      format: '',
    });
  });
  it('reads a ticket signed before tickets named the source and the click price, and carries the source of a new one', () => {
    const { source: _s, clickMicroCents: _c, format: _f, integration: _i, ...before } = ticket;
    const old = Object.values(before).map((v) => (v === false ? 0 : v));
    expect(old).toHaveLength(20);
    expect(decodeTicket(secret, signed(old))).toEqual({ ...ticket, source: '', format: '' });
    // Both are last on the wire (before the format): appended, so every older length still lines up.
    const fresh = JSON.parse(
      Buffer.from(encodeTicket(secret, ticket).split('.')[0] ?? '', 'base64url').toString('utf8'),
    ) as unknown[];
    expect(fresh).toEqual([...old, 'news.example.co.uk', 0, 'video', 'openrtb']);
  });
  it("carries an adjusted CPC click's price, signed: a ticket from before it charges the campaign's bid (0)", () => {
    const adjusted = { ...ticket, clickMicroCents: 60_000 };
    expect(decodeTicket(secret, encodeTicket(secret, adjusted))).toEqual(adjusted);
    const { source: _s, clickMicroCents: _c, format: _f, integration: _i, ...before } = ticket;
    expect(decodeTicket(secret, signed(Object.values(before).map((v) => (v === false ? 0 : v))))).toEqual({
      ...ticket,
      source: '',
      clickMicroCents: 0,
      format: '',
    });
    // Raising the price in the payload breaks the signature.
    const [payload, sig] = encodeTicket(secret, adjusted).split('.') as [string, string];
    const values = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    values[21] = 1;
    expect(decodeTicket(secret, `${Buffer.from(JSON.stringify(values)).toString('base64url')}.${sig}`)).toBeUndefined();
  });
  it('carries the format the ad was served as, last on the wire; a ticket signed before it (22 fields) names none', () => {
    for (const format of ['native', 'banner', 'video', 'floating_video', 'push', 'in_page_push'] as const)
      expect(decodeTicket(secret, encodeTicket(secret, { ...ticket, format }))).toEqual({ ...ticket, format });
    const { format: _f, integration: _i, ...before } = ticket;
    const old = Object.values(before).map((v) => (v === false ? 0 : v));
    expect(old).toHaveLength(22);
    expect(decodeTicket(secret, signed(old))).toEqual({ ...ticket, format: '' });
    expect(decodeTicket(secret, signed([...old, 'banner']))).toEqual({ ...ticket, format: 'banner' });
    // A format we do not serve is no ticket of ours, signed or not.
    expect(decodeTicket(secret, signed([...old, 'popup']))).toBeUndefined();
    // Changing the format breaks the signature.
    const [payload, sig] = encodeTicket(secret, ticket).split('.') as [string, string];
    const values = JSON.parse(Buffer.from(payload, 'base64url').toString()) as unknown[];
    values[22] = 'banner';
    expect(decodeTicket(secret, `${Buffer.from(JSON.stringify(values)).toString('base64url')}.${sig}`)).toBeUndefined();
  });
  it("carries the integration, last on the wire; a ticket signed before it (23 fields) reads its surface's", () => {
    for (const integration of ['widget', 'vast', 'openrtb', 'prebid', 'push'] as const)
      expect(decodeTicket(secret, encodeTicket(secret, { ...ticket, integration }))).toEqual({
        ...ticket,
        integration,
      });
    const { integration: _i, ...before } = ticket;
    const old = Object.values(before).map((v) => (v === false ? 0 : v));
    expect(old).toHaveLength(23);
    expect(decodeTicket(secret, signed(old))).toEqual(ticket);
    const vast = Object.values({ ...before, surface: 'vast' }).map((v) => (v === false ? 0 : v));
    expect(decodeTicket(secret, signed(vast))).toMatchObject({ surface: 'vast', integration: 'vast' });
    // An integration we do not have is no ticket of ours.
    expect(decodeTicket(secret, signed([...old, 'amp']))).toBeUndefined();
  });
  it('refuses a payload of any other length', () => {
    expect(
      decodeTicket(
        secret,
        signed(['b-1', 7, 3, 9, 150_000, 1_800_000_000, 'e1', 2, 'us', 'desktop', 4, 5, 6, 'vast', '', '', 0, 'ios']),
      ),
    ).toBeUndefined();
    const wire = JSON.parse(
      Buffer.from(encodeTicket(secret, ticket).split('.')[0] ?? '', 'base64url').toString('utf8'),
    ) as unknown[];
    expect(decodeTicket(secret, signed([...wire, 'more']))).toBeUndefined();
  });
  it('signs as createHmac does, for short, block-sized and long secrets and payloads of any size', () => {
    for (const key of ['', 's', 'x'.repeat(64), 'é'.repeat(40), 'z'.repeat(200)]) {
      // A user key long enough to outgrow the signer's first buffer, then a short ticket again after it.
      for (const t of [ticket, { ...ticket, user: 'u'.repeat(3000) }, ticket]) {
        const [payload, sig] = encodeTicket(key, t).split('.') as [string, string];
        expect(sig).toBe(createHmac('sha256', key).update(payload).digest('base64url').slice(0, 22));
        // Tokens past 1 024 characters are refused before their signature is checked.
        if (t === ticket) expect(decodeTicket(key, `${payload}.${sig}`)).toEqual(t);
      }
      // Characters past the base64url text are ignored by its decoder but signed: hashed as createHmac hashes them (UTF-8).
      const odd = `${encodeTicket(key, ticket).split('.')[0] as string}=ü€😀`;
      expect(
        decodeTicket(key, `${odd}.${createHmac('sha256', key).update(odd).digest('base64url').slice(0, 22)}`),
      ).toEqual(ticket);
    }
  });
  it('refuses tampering, other secrets and garbage', () => {
    const token = encodeTicket(secret, ticket);
    const [payload, sig] = token.split('.') as [string, string];
    const forged = Buffer.from(
      JSON.stringify(['b-1', 7, 3, 9, 99_999_999, 1_800_000_000, 'e1', 2, 'us', 'desktop', 4, 5, 6]),
    ).toString('base64url');
    expect(decodeTicket(secret, `${forged}.${sig}`)).toBeUndefined();
    expect(decodeTicket('y'.repeat(40), token)).toBeUndefined();
    expect(decodeTicket(secret, `${payload}.${sig.slice(0, -1)}${sig.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined();
    for (const junk of ['', '.', 'abc', `${payload}.`, '.'.repeat(5000)])
      expect(decodeTicket(secret, junk)).toBeUndefined();
  });
});
