import { describe, expect, it } from 'vitest';
import { encodeTicket } from '../tracking/signed-token.ts';
import { ticketFixture } from '../../test/fixtures/ticket-fixture.ts';
import { hbWinNotice } from './header-bid-won.ts';

const secret = 'x'.repeat(40);
const marks = () => {
  const seen = new Set<string>();
  return {
    countOnce: (kind: string, id: string) => Promise.resolve(!seen.has(`${kind}:${id}`) && !!seen.add(`${kind}:${id}`)),
  };
};

describe("Prebid's win notice for our header bid", () => {
  it('counts once per ad, whoever repeats it', async () => {
    const counters = marks();
    const token = encodeTicket(secret, ticketFixture({ surface: 'widget', partnerId: 0 }));
    expect(await hbWinNotice({ secret, counters }, token, Date.now())).toBe('counted');
    expect(await hbWinNotice({ secret, counters }, token, Date.now())).toBe('repeated');
  });

  it("knows only our own zone ads' tickets: a forged one, or an exchange partner's, is unknown", async () => {
    const counters = marks();
    const partner = encodeTicket(secret, ticketFixture({ surface: 'openrtb', partnerId: 2 }));
    const forged = encodeTicket('y'.repeat(40), ticketFixture({ surface: 'widget', partnerId: 0 }));
    for (const token of [partner, forged, '', 'nope.nope'])
      expect(await hbWinNotice({ secret, counters }, token, Date.now())).toBe('unknown');
  });

  it('answers without counting when the marks cannot be read, failing or slow', async () => {
    const token = encodeTicket(secret, ticketFixture({ surface: 'vast', partnerId: 0 }));
    const failing = { countOnce: () => Promise.reject(new Error('redis away')) };
    expect(await hbWinNotice({ secret, counters: failing }, token, Date.now())).toBe('repeated');
    const hanging = { countOnce: () => new Promise<boolean>(() => {}) };
    const t0 = Date.now();
    expect(await hbWinNotice({ secret, counters: hanging }, token, Date.now())).toBe('repeated');
    expect(Date.now() - t0).toBeLessThan(2_000);
  });
});
