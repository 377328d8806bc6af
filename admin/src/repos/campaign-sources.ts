import { adjustmentKey } from '@adnet/schemas/source-lists';
import type { BidAdjustment, SourceList, Warning } from '@adnet/schemas/source-lists';
import { NO_SOURCES } from '@adnet/schemas/source-lists';
import { ConflictError } from '../storage/config-store.ts';
import type { Services } from '../services.ts';
import { SUBIDS } from './publisher.ts';

// A campaign's source list is its own config kind (`campaign_sources`, keyed by the campaign's id): up to
// 10 000 entries would make every campaign read, and every engine's index rebuild, carry them.

export async function readSources(
  svc: Pick<Services, 'configStore'>,
  campaignId: number,
): Promise<{ list: SourceList; rev: number }> {
  const found = await svc.configStore.read<SourceList>('campaign_sources', campaignId);
  return found ? { list: found.value, rev: found.rev } : { list: NO_SOURCES, rev: 0 };
}

/** Each campaign's list, in the order of `ids` (none: nothing excluded). */
export async function readManySources(svc: Services, ids: readonly number[]): Promise<SourceList[]> {
  return (await svc.configStore.readEach<SourceList>('campaign_sources', ids)).map((list) => list ?? NO_SOURCES);
}

/**
 * Read-modify-write of one campaign's list with optimistic retries, so two concurrent edits both land.
 * `change` returns undefined to write nothing (the list already is what was asked).
 */
export async function changeSources(
  svc: Pick<Services, 'configStore'>,
  campaignId: number,
  change: (current: SourceList) => SourceList | undefined,
): Promise<SourceList> {
  for (let attempt = 0; ; attempt++) {
    const { list, rev } = await readSources(svc, campaignId);
    const next = change(list);
    if (!next) return list;
    try {
      await svc.configStore.commit('campaign_sources', campaignId, { expectedRev: rev, value: next });
      return next;
    } catch (e) {
      if (!(e instanceof ConflictError) || attempt >= 16) throw e;
    }
  }
}

/** Entries naming zones or sites we do not know: kept (they may appear later), reported. */
export async function sourceWarnings(
  svc: Services,
  entries: { zones?: readonly string[] | undefined; sites?: readonly number[] | undefined },
  adjustments: readonly BidAdjustment[] = [],
): Promise<Warning[]> {
  const zones = [
    ...new Set([...(entries.zones ?? []), ...adjustments.flatMap((a) => (a.zone === undefined ? [] : [a.zone]))]),
  ];
  const sites = [
    ...new Set([...(entries.sites ?? []), ...adjustments.flatMap((a) => (a.site === undefined ? [] : [a.site]))]),
  ];
  const { claimants, exists } = await svc.configStore.known(SUBIDS, zones, 'site', sites);
  const unknownZones = new Set(zones.filter((_, i) => claimants[i] === null));
  const unknownSites = new Set(sites.filter((_, i) => !exists[i]));
  const warnings: Warning[] = [];
  const listed = (field: string, values: (string | number)[], what: string) => {
    if (values.length)
      warnings.push({
        field,
        message: `${values.length} ${what} we do not know; kept, in case they appear later`,
        values,
      });
  };
  listed(
    'sources.zones',
    (entries.zones ?? []).filter((z) => unknownZones.has(z)),
    'zone subid(s)',
  );
  listed(
    'sources.sites',
    (entries.sites ?? []).filter((s) => unknownSites.has(s)),
    'site id(s)',
  );
  listed(
    'bid_adjustments',
    adjustments
      .filter(
        (a) => (a.zone !== undefined && unknownZones.has(a.zone)) || (a.site !== undefined && unknownSites.has(a.site)),
      )
      .map(adjustmentKey),
    'adjustment(s) naming a zone or site',
  );
  return warnings;
}
