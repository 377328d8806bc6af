/** Where a partner's circuit stands: closed (called), open (paused), half-open (one probe allowed). */
export type CircuitState = 'closed' | 'open' | 'half_open';

interface Circuit {
  failures: number;
  state: CircuitState;
  openedAt: number;
  probing: boolean;
}

/**
 * A per-partner circuit breaker, local to each engine (no shared state to wait on): `failuresToOpen`
 * failures in a row (errors, timeouts, garbage) open the circuit; after `coolDownMs` one request is
 * let through as a probe; its success closes the circuit, its failure opens it for another cool-down.
 */
export class CircuitBreaker {
  private readonly circuits = new Map<number, Circuit>();

  constructor(
    private readonly failuresToOpen = 5,
    private readonly coolDownMs = 10_000,
  ) {}

  state(id: number): CircuitState {
    return this.circuits.get(id)?.state ?? 'closed';
  }

  /** May this partner be called now? A half-open circuit lets exactly one probe through at a time. */
  allow(id: number, now: number): boolean {
    const c = this.circuits.get(id);
    if (!c || c.state === 'closed') return true;
    if (c.state === 'open') {
      if (now - c.openedAt < this.coolDownMs) return false;
      c.state = 'half_open';
      c.probing = false;
    }
    if (c.probing) return false;
    c.probing = true;
    return true;
  }

  success(id: number): void {
    const c = this.circuits.get(id);
    if (c) this.circuits.delete(id);
  }

  failure(id: number, now: number): void {
    let c = this.circuits.get(id);
    if (!c) this.circuits.set(id, (c = { failures: 0, state: 'closed', openedAt: 0, probing: false }));
    c.failures++;
    if (c.state === 'half_open' || c.failures >= this.failuresToOpen) {
      c.state = 'open';
      c.openedAt = now;
      c.probing = false;
    }
  }
}
