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

  /** True when the request may proceed. */
  take(partnerId: number, qpsLimit: number): boolean {
    const rate = qpsLimit / this.engineCount;
    const now = this.now();
    let b = this.buckets.get(partnerId);
    if (!b || b.rate !== rate) {
      b = { tokens: rate, at: now, rate };
      this.buckets.set(partnerId, b);
    }
    // A bucket of one second's worth: bursts up to the per-second limit.
    b.tokens = Math.min(rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }
}
