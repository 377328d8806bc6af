import { pipelineByKey } from '@adnet/runtime/redis-pipelines';
import type { StoredCampaign } from '@adnet/schemas/api';
import type { EngineEvent } from '@adnet/schemas/events';
import { CPA_COUNTS_TTL_MS, cpaCountsKey, cpaSpendField } from '@adnet/schemas/target-cpa';
import type { Redis } from 'ioredis';

/**
 * The spend of target-CPA campaigns per zone, shared by every engine (docs/delivery.md, "Target CPA"): each engine
 * adds what it settled to the campaign's counts in Redis at each flush; the admin adds the approved conversions
 * beside them and its controller reads both. Only campaigns with a target are counted: the others cost one lookup
 * per paid event and nothing per request.
 */
export class ZoneSpendCounts {
  /** Campaign id to zone id to nano-dollars settled here and not yet added. */
  private pending = new Map<number, Map<number, number>>();

  constructor(
    private readonly redis: Redis,
    /** The campaign as the engine's index knows it now. */
    private readonly campaign: (id: number) => StoredCampaign | undefined,
  ) {}

  /** Sees every event the engine emits; counts the charge of paid ones on our zones. */
  observe(e: EngineEvent): void {
    if (e.type !== 'win' && e.type !== 'imp' && e.type !== 'impression' && e.type !== 'click') return;
    if (e.charge_nano <= 0 || !e.zone_id) return;
    if (!this.campaign(e.campaign_id)?.target_cpa_cents) return;
    this.add(e.campaign_id, e.zone_id, e.charge_nano);
  }

  /** Nano-dollars counted here and not yet in Redis. */
  get unsent(): number {
    let n = 0;
    for (const zones of this.pending.values()) for (const v of zones.values()) n += v;
    return n;
  }

  /** Adds this engine's counts to the shared ones; what could not be sent is kept for the next flush. */
  async flush(): Promise<void> {
    const sending = this.pending;
    if (sending.size === 0) return;
    this.pending = new Map();
    const campaigns = [...sending.keys()];
    try {
      const replies = await pipelineByKey(
        this.redis,
        campaigns.map((c) => cpaCountsKey(c)),
        (p, key, i) => {
          for (const [zone, nano] of sending.get(campaigns[i] as number) ?? [])
            p.hincrby(key, cpaSpendField(zone), nano);
          p.pexpire(key, CPA_COUNTS_TTL_MS);
        },
      );
      for (const [err] of replies) if (err) throw err;
    } catch (err) {
      // Not sent: kept for the next flush, as the rotation's counts are. These counts steer bids; what is charged is
      // the budget's spend (budget/), which this never touches.
      for (const [campaign, zones] of sending) for (const [zone, nano] of zones) this.add(campaign, zone, nano);
      throw err;
    }
  }

  private add(campaign: number, zone: number, nano: number): void {
    let zones = this.pending.get(campaign);
    if (!zones) this.pending.set(campaign, (zones = new Map<number, number>()));
    zones.set(zone, (zones.get(zone) ?? 0) + nano);
  }
}
