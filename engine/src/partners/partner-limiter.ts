/**
 * Per-partner QPS limit, enforced locally with a token bucket so the hot path
 * never waits on Redis. With N engines behind a load balancer each engine
 * admits qps_limit / N (the engine count is configured), which holds the
 * partner's total when the balancer spreads requests evenly.
 */
export class PartnerLimiter {
  private readonly buckets = new Map<number, { tokens: number; at: number; rate: number }>();

  constructor(
    private readonly engineCount: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /**
   * True when the request may proceed. `keepShare` (0 to 1) of the bucket stays for callers that pass none:
   * a sender that can wait (push) leaves page views, which cannot, their share.
   */
  take(partnerId: number, qpsLimit: number, keepShare = 0): boolean {
    const b = this.refilled(partnerId, qpsLimit);
    if (b.tokens < 1 + kept(b.rate, keepShare)) return false;
    b.tokens -= 1;
    return true;
  }

  /** How long until `take` with the same `keepShare` would admit one request: 0 when it would now. */
  msUntil(partnerId: number, qpsLimit: number, keepShare = 0): number {
    const b = this.refilled(partnerId, qpsLimit);
    const missing = 1 + kept(b.rate, keepShare) - b.tokens;
    return missing <= 0 ? 0 : Math.ceil((missing / b.rate) * 1000);
  }

  private refilled(partnerId: number, qpsLimit: number): { tokens: number; at: number; rate: number } {
    const rate = qpsLimit / this.engineCount;
    const now = this.now();
    let b = this.buckets.get(partnerId);
    if (!b || b.rate !== rate) {
      b = { tokens: capacity(rate), at: now, rate };
      this.buckets.set(partnerId, b);
    }
    b.tokens = Math.min(capacity(rate), b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    return b;
  }
}

/**
 * A bucket of one second's worth: bursts up to the per-second limit. At least one request, or a partner whose
 * limit is below the engine count (1 QPS over 2 engines) would never fill to one token and never be asked.
 */
const capacity = (rate: number): number => Math.max(1, rate);

/** Tokens a `keepShare` leaves in the bucket; never so many that the keeping caller could not take one from a full bucket. */
const kept = (rate: number, keepShare: number): number => Math.min(keepShare * capacity(rate), capacity(rate) - 1);
