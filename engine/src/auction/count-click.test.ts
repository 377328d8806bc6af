import type { StoredCampaign } from '@adnet/schemas/api';
import type { EngineEvent } from '@adnet/schemas/events';
import type { ClickRecord } from '@adnet/schemas/wire/click-record';
import { describe, expect, it } from 'vitest';
import { ticketFixture } from '../../test/fixtures/ticket-fixture.ts';
import { countClick } from './count-click.ts';
import type { ClickPorts } from './count-click.ts';
import type { DirectCharge } from './ports.ts';

const ticket = ticketFixture();
const campaign = {
  id: 7,
  advertiser_id: 3,
  status: 'active',
  bid_type: 'cpc',
  bid_micro_cents: 40_000_000,
  daily_budget_cents: 10_000,
  total_budget_cents: null,
  vertical: 'ecommerce',
} as unknown as StoredCampaign;

/** Ports over in-memory marks, as the Redis counters keep them: a mark carries the attempt that set it, so the same attempt counts as itself. */
function ports(failSaves: number) {
  const marks = new Map<string, string>();
  const charges: DirectCharge[] = [];
  const events: EngineEvent[] = [];
  const records: ClickRecord[] = [];
  const joined: unknown[] = [];
  let saveFailures = failSaves;
  const p: ClickPorts = {
    engineId: 'e1',
    audiences: { counted: (event, ad) => void joined.push([event, ad]) },
    emit: (e) => void events.push(e),
    direct: { charge: (c) => (charges.push(c), Promise.resolve('charged' as const)) },
    counters: {
      countClick: (id, _fp, _now, attempt) => {
        const held = marks.get(id);
        if (held !== undefined && held !== attempt) return Promise.resolve(undefined);
        marks.set(id, attempt ?? '');
        return Promise.resolve(1);
      },
      saveClick: (_id, record) => {
        if (saveFailures-- > 0) return Promise.reject(new Error('Command timed out'));
        records.push(record);
        return Promise.resolve();
      },
    },
  };
  return { p, charges, events, records, joined };
}

describe('counting a click', () => {
  it('charges and emits a click once when its record could not be written and the request is run again', async () => {
    // Redis slow: the record's write fails, the request is journaled, and the replay runs it as the same attempt.
    const w = ports(1);
    const target = { ticket, campaign, clickId: 'c-1' };
    const verdict = { reason: undefined, fingerprint: 'fp' };
    await expect(countClick(w.p, target, verdict, 'android', 'chrome', 1_000, 'att-1')).rejects.toThrow(
      'Command timed out',
    );
    expect(w.charges).toHaveLength(0);
    expect(w.events).toHaveLength(0);
    expect(await countClick(w.p, target, verdict, 'android', 'chrome', 1_000, 'att-1')).toBeGreaterThan(0);
    expect(w.charges).toHaveLength(1);
    expect(w.events).toEqual([expect.objectContaining({ type: 'click', invalid: false, click_id: 'c-1' })]);
    expect(w.records).toEqual([expect.objectContaining({ campaign_id: 7, invalid: false })]);
    // Another request for the same ad is a duplicate: recorded, never charged.
    await countClick(w.p, target, verdict, 'android', 'chrome', 2_000, 'att-2');
    expect(w.charges).toHaveLength(1);
    expect(w.events.map((e) => (e.type === 'click' ? e.reason : undefined))).toEqual([undefined, 'duplicate']);
  });

  it("makes the viewer of a valid click on a watched campaign's ad a member (clicked); an invalid or duplicate click nobody", async () => {
    const w = ports(0);
    const named = { ticket: { ...ticket, user: 'userkey' }, campaign, clickId: 'c-2' };
    await countClick(w.p, named, { reason: 'too_fast', fingerprint: 'fp' }, 'android', 'chrome', 1_000);
    expect(w.joined).toEqual([]);
    await countClick(w.p, named, { reason: undefined, fingerprint: 'fp' }, 'android', 'chrome', 2_000);
    expect(w.joined).toEqual([['clicked', { user: 'userkey', campaignId: 7 }]]);
    // Kept in the click record for the conversion's audiences.
    expect(w.records.at(-1)).toMatchObject({ user: 'userkey', invalid: false });
    await countClick(w.p, named, { reason: undefined, fingerprint: 'fp' }, 'android', 'chrome', 3_000);
    expect(w.joined).toHaveLength(1);
    const anonymous = ports(0);
    await countClick(
      anonymous.p,
      { ticket, campaign, clickId: 'c-3' },
      { reason: undefined, fingerprint: 'fp' },
      'ios',
      'safari',
      1_000,
    );
    expect(anonymous.joined).toEqual([]);
    expect(anonymous.records.at(-1)).not.toHaveProperty('user', expect.anything());
  });
});
