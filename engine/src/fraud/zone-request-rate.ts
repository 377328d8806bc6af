/**
 * How many ad requests one address, and one browser fingerprint, may make of one zone in a minute
 * before the rest are invalid traffic. A person reading pages asks a zone for an ad once per page
 * view; a script farming tickets asks hundreds of times. The address limit is the generous one:
 * offices and mobile carriers put many people behind one address.
 */
export interface ZoneRequestLimits {
  perAddressPerMinute: number;
  perFingerprintPerMinute: number;
  /** Keys remembered per window; past it, requests from new keys are not counted (memory stays bounded). */
  maxKeys: number;
}

export type RequestFlood = 'address_flood' | 'fingerprint_flood';

const WINDOW_MS = 60_000;

/**
 * Fixed one-minute windows kept in this process's memory: no round trip on the ad path. Each engine
 * counts what reaches it, so behind a load balancer spreading one address over N engines the
 * effective limit is at most N times the configured one (docs/browser-endpoints.md).
 */
export class ZoneRequestRate {
  private window = -1;
  // Per zone, keyed by the request's own strings: no key is built per request.
  private readonly zones = new Map<number, { byAddress: Map<string, number>; byFingerprint: Map<string, number> }>();
  /** Keys counted in this window, across zones. */
  private keys = 0;

  constructor(private readonly limits: ZoneRequestLimits) {}

  /** Counts one request and says whether it is past a limit; `fingerprint` '' when the client sent none. */
  record(zoneId: number, address: string, fingerprint: string, now: number): RequestFlood | undefined {
    const window = Math.floor(now / WINDOW_MS);
    if (window !== this.window) {
      this.window = window;
      this.zones.clear();
      this.keys = 0;
    }
    let zone = this.zones.get(zoneId);
    if (!zone)
      this.zones.set(
        zoneId,
        (zone = { byAddress: new Map<string, number>(), byFingerprint: new Map<string, number>() }),
      );
    if (this.bump(zone.byAddress, address) > this.limits.perAddressPerMinute) return 'address_flood';
    if (fingerprint && this.bump(zone.byFingerprint, fingerprint) > this.limits.perFingerprintPerMinute)
      return 'fingerprint_flood';
    return undefined;
  }

  /** Keys counted in the current window. */
  get size(): number {
    return this.keys;
  }

  private bump(counts: Map<string, number>, key: string): number {
    const n = (counts.get(key) ?? 0) + 1;
    if (n === 1) {
      if (this.keys >= this.limits.maxKeys) return 1;
      this.keys++;
    }
    counts.set(key, n);
    return n;
  }
}
