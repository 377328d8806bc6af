/**
 * The request-body bytes one process may hold in memory at once, over all requests. Every body reader
 * takes what it is about to buffer through a lease of its request, before buffering it; when the total
 * would pass the limit the take fails and the reader refuses the request (503) instead of growing.
 * The lease gives everything back once, when its request is answered or aborted.
 */
export class ByteBudget {
  private used = 0;

  constructor(readonly limit: number) {}

  /** Bytes held by requests in progress. */
  get inUse(): number {
    return this.used;
  }

  lease(): ByteLease {
    return new ByteLease(this);
  }

  /** @internal through a lease */
  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  /** @internal through a lease */
  give(bytes: number): void {
    this.used -= bytes;
  }
}

/** One request's share of a ByteBudget. */
export class ByteLease {
  private taken = 0;
  private released = false;

  constructor(private readonly budget: ByteBudget) {}

  /** Bytes this request holds. */
  get held(): number {
    return this.taken;
  }

  /** Holds at least `total` bytes for this request (takes only the difference); false when the process has no room left. */
  holdUpTo(total: number): boolean {
    if (this.released) return false;
    if (total <= this.taken) return true;
    if (!this.budget.take(total - this.taken)) return false;
    this.taken = total;
    return true;
  }

  /** Gives back everything held; later calls do nothing. */
  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.give(this.taken);
    this.taken = 0;
  }
}
