import type { StoredCampaign } from '@adnet/schemas/api';
import type { EngineEvent, EventOf } from '@adnet/schemas/events';
import { describe, expect, it } from 'vitest';
import { campaignFixture } from '../../test/fixtures/index-fixtures.ts';
import type { BidTicket } from '../tracking/signed-token.ts';
import type { DirectCharge } from './ports.ts';
import { settleTicket } from './settle.ts';
import type { TicketSettlePorts } from './settle.ts';

const BID_AT_S = 1_800_000_000;
const ticket = { issuedAt: BID_AT_S, engine: 'bidder', campaignId: 5 } as BidTicket;
const win: EventOf<'win'> = {
  id: 'w1',
  type: 'win',
  ts: 0,
  engine: 'counter',
  bid_id: 'b1',
  partner_id: 3,
  campaign_id: 5,
  creative_id: 6,
  advertiser_id: 7,
  zone_id: 9,
  price_micro_cents: 150_000,
  charge_nano: 1_500_000,
};

function ports(
  answer: 'charged' | 'budget_exhausted' | 'balance_exhausted',
  status: StoredCampaign['status'] = 'active',
  cap: StoredCampaign['frequency_cap'] = null,
) {
  const recorded: [number, string, number, string][] = [];
  const charged: DirectCharge[] = [];
  const emitted: EngineEvent[] = [];
  const capped: unknown[] = [];
  const joined: unknown[] = [];
  const p: TicketSettlePorts = {
    spend: {
      recordSpend: (...[campaignId, , day, nano, engine]) => void recorded.push([campaignId, day, nano, engine]),
    },
    emit: (e) => void emitted.push(e),
    direct: { charge: (c) => (charged.push(c), Promise.resolve(answer)) },
    caps: { viewer: () => undefined, counted: (ad) => void capped.push(ad) },
    audiences: { counted: (event, ad) => void joined.push([event, ad]) },
    campaign: (id) => campaignFixture({ id, advertiser_id: 7, status, daily_budget_cents: 500, frequency_cap: cap }),
  };
  return { p, recorded, charged, emitted, capped, joined };
}

describe('settleTicket', () => {
  it("records spend against the bidding engine's hold while the hold is surely there", async () => {
    const { p, recorded, charged, emitted } = ports('charged');
    expect(await settleTicket(p, win, ticket, BID_AT_S * 1000 + 49_000)).toBe(true);
    expect(recorded).toEqual([[5, '2027-01-15', 1_500_000, 'bidder']]);
    expect(charged).toEqual([]);
    expect(emitted).toEqual([win]);
  });

  it('charges straight against budget and balance once the hold may have lapsed', async () => {
    const { p, recorded, charged, emitted } = ports('charged');
    expect(await settleTicket(p, win, ticket, BID_AT_S * 1000 + 50_000)).toBe(true);
    expect(recorded).toEqual([]);
    expect(charged).toEqual([
      {
        campaignId: 5,
        advertiserId: 7,
        dailyBudgetCents: 500,
        totalBudgetCents: -1,
        bidType: 'cpm',
        day: '2027-01-15',
        nano: 1_500_000,
        at: BID_AT_S * 1000 + 50_000,
        reason: 'ad spend',
      },
    ]);
    expect(emitted).toEqual([win]);
  });

  it('records a late ad the budget, the balance or a stopped campaign no longer covers as uncounted, charged nothing', async () => {
    for (const [answer, status, reason] of [
      ['budget_exhausted', 'active', 'budget_exhausted'],
      ['balance_exhausted', 'active', 'balance_exhausted'],
      ['charged', 'paused', 'campaign_not_active'],
    ] as const) {
      const { p, recorded, emitted } = ports(answer, status);
      expect(await settleTicket(p, win, ticket, BID_AT_S * 1000 + 5 * 60_000)).toBe(false);
      expect(recorded).toEqual([]);
      expect(emitted).toEqual([
        expect.objectContaining({
          type: 'uncounted',
          of: 'win',
          reason,
          bid_id: 'b1',
          campaign_id: 5,
          zone_id: 9,
          partner_id: 3,
          engine: 'counter',
        }),
      ]);
      expect(emitted[0]).not.toHaveProperty('charge_nano');
    }
  });

  it('charges a stopped campaign nothing within the hold as well: no spend against the hold, recorded as uncounted', async () => {
    for (const status of ['paused', 'archived'] as const) {
      for (const free of [false, true]) {
        const { p, recorded, charged, emitted, capped } = ports('charged', status, { impressions: 3, period_hours: 6 });
        const event = free ? { ...win, charge_nano: 0 } : win;
        expect(await settleTicket(p, event, { ...ticket, user: 'userkey' }, BID_AT_S * 1000 + 1_000)).toBe(false);
        expect([recorded, charged, capped]).toEqual([[], [], []]);
        expect(emitted).toEqual([
          expect.objectContaining({
            type: 'uncounted',
            of: 'win',
            reason: 'campaign_not_active',
            bid_id: 'b1',
            campaign_id: 5,
          }),
        ]);
      }
    }
    // A campaign the index no longer knows is as stopped.
    const gone = ports('charged');
    gone.p.campaign = () => undefined;
    expect(await settleTicket(gone.p, win, ticket, BID_AT_S * 1000 + 1_000)).toBe(false);
    expect(gone.recorded).toEqual([]);
    expect(gone.emitted).toEqual([expect.objectContaining({ type: 'uncounted', reason: 'campaign_not_active' })]);
  });

  it('moves no money for what costs nothing, however late', async () => {
    const { p, recorded, charged, emitted } = ports('budget_exhausted');
    const free = { ...win, charge_nano: 0 };
    expect(await settleTicket(p, free, ticket, BID_AT_S * 1000 + 5 * 60_000)).toBe(true);
    expect([recorded, charged, emitted]).toEqual([[], [], [free]]);
  });

  it("counts a capped campaign's counted ad against its user, and nothing else", async () => {
    const cap = { impressions: 3, period_hours: 6 };
    const named = { ...ticket, user: 'userkey' };
    const inHold = ports('charged', 'active', cap);
    await settleTicket(inHold.p, win, named, BID_AT_S * 1000 + 1_000);
    expect(inHold.capped).toEqual([{ user: 'userkey', campaignId: 5, periodHours: 6, servedBy: 'bidder' }]);
    const late = ports('charged', 'active', cap);
    await settleTicket(late.p, win, named, BID_AT_S * 1000 + 5 * 60_000);
    expect(late.capped).toHaveLength(1);
    // Not counted (the budget ran out), no user named, or the campaign has no cap (any more).
    const refused = ports('budget_exhausted', 'active', cap);
    await settleTicket(refused.p, win, named, BID_AT_S * 1000 + 5 * 60_000);
    const anonymous = ports('charged', 'active', cap);
    await settleTicket(anonymous.p, win, { ...ticket, user: '' }, BID_AT_S * 1000);
    const uncapped = ports('charged');
    await settleTicket(uncapped.p, win, named, BID_AT_S * 1000);
    expect([refused.capped, anonymous.capped, uncapped.capped]).toEqual([[], [], []]);
  });

  it("makes a watched campaign's counted ad's viewer a member (viewed), and nobody for an ad not counted or naming no viewer", async () => {
    const named = { ...ticket, user: 'userkey' };
    const counted = ports('charged');
    await settleTicket(counted.p, win, named, BID_AT_S * 1000 + 1_000);
    expect(counted.joined).toEqual([['viewed', { user: 'userkey', campaignId: 5 }]]);
    const refused = ports('budget_exhausted');
    await settleTicket(refused.p, win, named, BID_AT_S * 1000 + 5 * 60_000);
    const stopped = ports('charged', 'paused');
    await settleTicket(stopped.p, win, named, BID_AT_S * 1000 + 1_000);
    const anonymous = ports('charged');
    await settleTicket(anonymous.p, win, ticket, BID_AT_S * 1000 + 1_000);
    expect([refused.joined, stopped.joined, anonymous.joined]).toEqual([[], [], []]);
  });
});
