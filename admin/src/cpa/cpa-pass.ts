import { Periodic } from '@adnet/runtime/periodic';
import type { StoredCampaign } from '@adnet/schemas/api';
import { randomUUID } from 'node:crypto';
import type { Logger } from '../log.ts';
import type { ConfigStore } from '../storage/config-store.ts';
import type { Redis } from '../storage/redis.ts';
import { CPA_CAMPAIGNS_KEY, stepCampaign } from './zone-bids.ts';

/** What the target-CPA controller uses of the admin's services. */
export interface TargetCpaPorts {
  redis: Redis;
  configStore: ConfigStore;
  log: Logger;
  /** Pause between passes (TARGET_CPA_PASS_MS). */
  intervalMs: number;
}

/** Held by the admin process whose pass runs; the others skip theirs while it is held. */
const LEASE_KEY = 'cpa:lease';

export interface TargetCpaResult {
  /** False when another admin process holds the lease: this one did nothing. */
  ran: boolean;
  campaigns: number;
  written: number;
}

/**
 * One pass of the target-CPA controller over every campaign with a target, run by one admin process at a time:
 * the first to take the lease (`SET NX PX`, kept for most of an interval and never released early) runs, the
 * others find it taken and skip. Even two passes at once would not step a bid twice: a step waits for new spend
 * past the last one (domain/target-cpa.ts) and a decision is written only over the revision it was made from.
 */
export async function runTargetCpa(ports: TargetCpaPorts, owner: string): Promise<TargetCpaResult> {
  const leaseMs = Math.max(50, Math.floor(ports.intervalMs * 0.9));
  const got = await ports.redis.set(LEASE_KEY, owner, 'PX', leaseMs, 'NX');
  if (got !== 'OK') return { ran: false, campaigns: 0, written: 0 };
  const ids = (await ports.configStore.indexed(CPA_CAMPAIGNS_KEY)).map(Number);
  const campaigns = await ports.configStore.readEach<StoredCampaign>('campaign', ids);
  let written = 0;
  let counted = 0;
  for (const [i, campaign] of campaigns.entries()) {
    // Gone, archived, or its target turned off: off the work list (a target set again puts it back).
    if (!campaign || campaign.status === 'archived' || !campaign.target_cpa_cents) {
      await ports.redis.srem(CPA_CAMPAIGNS_KEY, String(ids[i]));
      continue;
    }
    counted++;
    if (await stepCampaign(ports, campaign)) written++;
  }
  if (written) ports.log.info({ event: 'cpa.pass', campaigns: counted, written }, 'target CPA zone bids moved');
  return { ran: true, campaigns: counted, written };
}

/** The controller on its timer (admin part `target-cpa`). */
export function targetCpaPass(ports: TargetCpaPorts): Periodic {
  const owner = randomUUID();
  return new Periodic({
    intervalMs: ports.intervalMs,
    pass: () => runTargetCpa(ports, owner),
    onError: (err) =>
      ports.log.warn(
        { event: 'cpa.pass_failed', err: err instanceof Error ? err.message : String(err) },
        'target CPA pass failed',
      ),
  });
}
