import type { StoredCampaign } from '@adnet/schemas/api';
import type { EngineEvent } from '@adnet/schemas/events';
import { describe, expect, it } from 'vitest';
import type { BidTicket } from '../tracking/signed-token.ts';
import { ticketFixture } from '../../test/fixtures/ticket-fixture.ts';
import { countTicket } from './count-ticket.ts';
import type { TicketPorts } from './count-ticket.ts';

const ISSUED = 1_800_000_000;
const NOW = ISSUED * 1000 + 5_000;
const base: BidTicket = ticketFixture({ issuedAt: ISSUED });

/** Ports over an in-memory once-only store, the events kept in order. */
function ports(bidType: 'cpm' | 'cpc' = 'cpm') {
  const marks = new Set<string>();
  const events: EngineEvent[] = [];
  const p: TicketPorts = {
    engineId: 'e2',
    counters: {
      countOnce: (kind, id) => Promise.resolve(!marks.has(`${kind}:${id}`) && marks.add(`${kind}:${id}`) !== undefined),
      countedAt: (kind, id) => Promise.resolve(marks.has(`${kind}:${id}`) ? NOW : undefined),
    },
    emit: (e) => void events.push(e),
    spend: { recordSpend: () => undefined },
    direct: { charge: () => Promise.resolve('charged') },
    caps: { viewer: () => undefined, counted: () => undefined },
    audiences: { counted: () => undefined },
    campaign: () => ({ id: 7, status: 'active', bid_type: bidType }) as StoredCampaign,
  };
  return { p, events, marks };
}
const kinds = (events: EngineEvent[]) => events.map((e) => [e.type, 'reason' in e ? e.reason : undefined]);

describe('counting one ticket', () => {
  it('the render beacon is the impression, counted once; its viewable one only after it', async () => {
    const { p, events } = ports();
    expect(await countTicket(p, base, 'beacon-viewable', NOW)).toBe(false);
    expect(await countTicket(p, base, 'beacon', NOW)).toBe(true);
    expect(await countTicket(p, base, 'beacon', NOW)).toBe(false);
    expect(await countTicket(p, base, 'beacon-viewable', NOW)).toBe(true);
    expect(kinds(events)).toEqual([
      ['impression', undefined],
      ['viewable', undefined],
    ]);
  });
  it('a beacon past its age or from another viewer is uncounted; a refused viewable one is silent', async () => {
    const { p, events } = ports();
    await countTicket(p, base, 'beacon', NOW + 3_600_000);
    await countTicket(p, base, 'beacon', NOW, undefined, base.priceMicroCents, false);
    await countTicket(p, base, 'beacon-viewable', NOW, undefined, base.priceMicroCents, false);
    expect(kinds(events)).toEqual([
      ['uncounted', 'expired'],
      ['uncounted', 'mismatch'],
    ]);
  });
  it("a win is charged at its clearing price once; a test request's is uncounted", async () => {
    const { p, events } = ports();
    const partner = { ...base, surface: 'openrtb' as const, partnerId: 2 };
    expect(await countTicket(p, partner, 'win', NOW, undefined, 120_000)).toBe(true);
    expect(await countTicket(p, partner, 'bill', NOW, undefined, 120_000)).toBe(false);
    expect(await countTicket(p, { ...partner, bidId: 'b-2', test: true }, 'win', NOW)).toBe(false);
    expect(events.map((e) => [e.type, 'price_micro_cents' in e ? e.price_micro_cents : undefined])).toEqual([
      ['win', 120_000],
      ['uncounted', undefined],
    ]);
  });
  it("a VAST pixel is our own zone's impression, a partner's `imp` uncharged", async () => {
    const { p, events } = ports();
    await countTicket(p, { ...base, surface: 'vast' }, 'pixel', NOW);
    await countTicket(p, { ...base, bidId: 'b-2', surface: 'openrtb', partnerId: 2 }, 'pixel', NOW);
    expect(events.map((e) => [e.type, 'charge_nano' in e ? e.charge_nano : undefined])).toEqual([
      ['impression', 1_500_000],
      ['imp', 0],
    ]);
  });
});
