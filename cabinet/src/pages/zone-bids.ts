// A target-CPA campaign's zones: each one's state (testing, excluded, optimised), its bid, spend, conversions and
// eCPA, and why (admin/docs/api.md, "Target CPA").
import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { h, table } from '../dom.ts';
import { count, money } from '../format.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type Row = Outputs['adv']['campaigns']['zoneBids']['zones'][number];

/** A bid in micro-cents in the campaign's unit, as dollars to the micro-cent it can hold. */
const bidText = (microCents: number, unit: Campaign['bid_type']): string =>
  `$${(microCents / 100_000).toFixed(microCents % 1000 === 0 ? 2 : 5)} ${unit.toUpperCase()}`;

/** Nothing for a campaign without a target; else a section of its zones, by zone id. */
export async function zoneBidsSection(c: Campaign): Promise<HTMLElement[]> {
  if (c.target_cpa_cents === null) return [];
  const answer = await api.adv.campaigns.zoneBids.query({ id: c.id });
  const rows = answer.zones.map((z: Row) => [
    String(z.zone_id),
    z.site_domain || '—',
    z.state,
    z.state === 'excluded' ? '—' : bidText(z.bid_micro_cents, c.bid_type),
    money(z.spend_cents),
    count(z.conversions),
    z.ecpa_cents === null ? '—' : money(z.ecpa_cents),
    z.reason,
  ]);
  const section = h(
    'section',
    { id: 'zone-bids', 'aria-labelledby': 'zone-bids-title' },
    h('h2', { id: 'zone-bids-title' }, 'Zone bids'),
    h(
      'p',
      {},
      `Target ${money(answer.target_cpa_cents ?? 0)} per conversion; a zone is excluded after spending ` +
        `${money(answer.cpa_test_budget_cents ?? 0)} without one. Bids are optimised once the campaign has 10 ` +
        `conversions (${count(answer.conversions)} so far).`,
    ),
    table(['Zone', 'Site', 'State', 'Bid', 'Spend', 'Conversions', 'eCPA', 'Why'], rows, 'Zone bids of the target CPA'),
  );
  return [section];
}
