import type { Partner } from '@adnet/schemas/partners';
import { describe, expect, it } from 'vitest';
import { buildIndex, partnerFor } from './engine-index.ts';
import type { ConfigState } from './engine-index.ts';
import { updateIndex } from './index-update.ts';

const partner = (id: number, allowed_ips: string[]): Partner => ({
  id,
  name: `p${id}`,
  allowed_ips,
  billing_notice: 'nurl',
  qps_limit: 10,
  status: 'active',
  created_at: '',
  updated_at: '',
});

const stateWith = (partners: Partner[]): ConfigState => ({
  campaign: new Map(),
  creative: new Map(),
  partner: new Map(partners.map((p) => [p.id, p])),
  site: new Map(),
  zone: new Map(),
  deal: new Map(),
});

describe('partners whose allow-lists overlap', () => {
  it('give the address to the lower id, whatever order the configuration arrived in', () => {
    const wide = partner(2, ['192.0.2.0/24']);
    const narrow = partner(1, ['192.0.2.7']);
    for (const arrived of [
      [wide, narrow],
      [narrow, wide],
    ]) {
      expect(partnerFor(buildIndex(stateWith(arrived), '1-0'), '192.0.2.7')?.partner.id).toBe(1);
      expect(partnerFor(buildIndex(stateWith(arrived), '1-0'), '192.0.2.8')?.partner.id).toBe(2);
    }
    // A partner added later by a change still comes before a higher id already there.
    const state = stateWith([wide]);
    const index = buildIndex(state, '1-0');
    const next = updateIndex(index, state, [{ kind: 'partner', id: 1, op: 'put', value: narrow }], '2-0');
    expect(partnerFor(next.index, '192.0.2.7')?.partner.id).toBe(1);
  });
});
