import { beforeAll, describe, expect, it } from 'vitest';
import { cpaCountsKey, cpaSpendField } from '@adnet/schemas/target-cpa';
import type { ZoneBids } from '@adnet/schemas/target-cpa';
import { readChanges } from '@adnet/schemas/wire/change-log';
import { call, useTestApp } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { World } from '@adnet/test-support/world';
import { runTargetCpa } from '../src/cpa/cpa-pass.ts';
import type { TargetCpaPorts } from '../src/cpa/cpa-pass.ts';

// The target-CPA controller across admin processes: five passes started at once, each on a Redis connection of
// its own as five admin processes would be, run exactly once between them (the lease), write one decision, and a
// pass with nothing new writes nothing. A campaign whose target is turned off leaves the work list and its
// decisions go, in the change log every engine reads.

const fx = useTestApp();
let adv: Account;
let zone: { id: number; subid: string };
let campaignId = 0;
// Long enough that the second round below lands inside the first pass's lease however loaded the machine is.
const INTERVAL_MS = 3_000;

const processes = (n: number): TargetCpaPorts[] =>
  Array.from({ length: n }, () => ({
    redis: fx.app.svc.redis.duplicate(),
    configStore: fx.app.svc.configStore,
    log: fx.app.svc.log,
    intervalMs: INTERVAL_MS,
  }));
/** Until the lease the last pass took has run out (90 % of the interval). */
async function leaseGone(): Promise<void> {
  while ((await fx.app.svc.redis.exists('cpa:lease')) === 1) await new Promise((r) => setTimeout(r, 50));
}
const zoneBidChanges = async () =>
  (await readChanges(fx.app.svc.redis, '0-0', 100_000)).filter(
    (c) => c.kind === 'campaign_zone_bids' && c.id === campaignId,
  );

beforeAll(async () => {
  const world = await World.create(fx.app);
  adv = await world.advertiser(10_000);
  zone = await world.zone({ format: 'native' });
  campaignId = (await world.campaign(adv, { format: 'native', bid_type: 'cpm', bid_usd: 2, target_cpa_usd: 1 }))
    .campaign.id;
});

describe('the target-CPA pass', () => {
  it('runs once across concurrent admin processes, and writes only what changed', async () => {
    // The engines' counts: $2.50 spent on the zone, no conversion (test budget $2).
    await fx.app.svc.redis.hincrby(cpaCountsKey(campaignId), cpaSpendField(zone.id), 2_500_000_000);
    const admins = processes(5);
    const first = await Promise.all(admins.map((p, i) => runTargetCpa(p, `admin-${i}`)));
    expect(first.filter((r) => r.ran)).toEqual([{ ran: true, campaigns: 1, written: 1 }]);
    const stored = await fx.app.svc.configStore.read<ZoneBids>('campaign_zone_bids', campaignId);
    expect(stored?.value.zones).toMatchObject([{ zone_id: zone.id, subid: zone.subid, state: 'excluded' }]);
    expect(await zoneBidChanges()).toHaveLength(1);

    // While the lease is held every process skips; after it, one runs and finds nothing to write.
    expect((await Promise.all(admins.map((p, i) => runTargetCpa(p, `admin-${i}`)))).some((r) => r.ran)).toBe(false);
    await leaseGone();
    const again = await Promise.all(admins.map((p, i) => runTargetCpa(p, `admin-${i}`)));
    expect(again.filter((r) => r.ran)).toEqual([{ ran: true, campaigns: 1, written: 0 }]);
    expect(await zoneBidChanges()).toHaveLength(1);
    for (const p of admins) p.redis.disconnect();
  });

  it('a target turned off takes the decisions and the counts with it, and leaves the work list', async () => {
    const r = await call(fx.app, 'PATCH', `/api/adv/campaigns/${campaignId}`, {
      token: adv.token,
      json: { target_cpa_usd: null },
    });
    expect(r.status).toBe(200);
    expect(await fx.app.svc.configStore.read('campaign_zone_bids', campaignId)).toBeUndefined();
    expect((await zoneBidChanges()).map((c) => c.op)).toEqual(['put', 'del']);
    expect(await fx.app.svc.redis.exists(cpaCountsKey(campaignId))).toBe(0);
    await leaseGone();
    const [admin] = processes(1);
    expect(await runTargetCpa(admin as TargetCpaPorts, 'admin-x')).toEqual({ ran: true, campaigns: 0, written: 0 });
    admin?.redis.disconnect();
    const answer = await call(fx.app, 'GET', `/api/adv/campaigns/${campaignId}/zone-bids`, { token: adv.token });
    expect(answer.body).toEqual({ target_cpa_cents: null, cpa_test_budget_cents: null, conversions: 0, zones: [] });
  });
});
