import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { effectiveControls } from '@adnet/schemas/publisher-controls';
import type { Fallback } from '@adnet/schemas/publisher-controls';

/** A zone's (or a site's) controls as the hot path reads them: sets, built once per configuration change. */
export interface InventoryControls {
  /** CPM micro-cents; 0 for none. */
  readonly floorMicroCents: number;
  /** Null when nothing is blocked, so a filter answers with one comparison. */
  readonly blockedVerticals: ReadonlySet<string> | null;
  /** Registrable names and their subdomains are matched through `Candidate.domainKeys`. */
  readonly blockedDomains: ReadonlySet<string> | null;
  /** What an unfilled display zone shows; null for nothing. */
  readonly fallback: Fallback | null;
}

const setOrNull = (values: readonly string[]): ReadonlySet<string> | null => (values.length ? new Set(values) : null);

/** The zone's controls over its site's defaults (schemas/src/publisher-controls.ts has the precedence). */
export function inventoryControls(zone: Partial<StoredZone>, site: StoredSite | undefined): InventoryControls {
  const c = effectiveControls(zone, site);
  return {
    floorMicroCents: c.floorMicroCents,
    blockedVerticals: setOrNull(c.blockedVerticals),
    blockedDomains: setOrNull(c.blockedDomains),
    fallback: c.fallback,
  };
}

/** Inventory whose publisher set nothing. */
export const NO_CONTROLS: InventoryControls = {
  floorMicroCents: 0,
  blockedVerticals: null,
  blockedDomains: null,
  fallback: null,
};
