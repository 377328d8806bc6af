import { MAX_SOURCE_ENTRIES, tooManySources } from '@adnet/schemas/source-lists';
import type { SourceList } from '@adnet/schemas/source-lists';
export { sameSourceList as sameSources } from '@adnet/schemas/source-lists';

export interface SourceEntries {
  zones?: readonly string[] | undefined;
  sites?: readonly number[] | undefined;
}

/** The list with `add` appended (entries already there stay where they are), or the fields that would pass the limit. */
export function addSources(
  list: SourceList,
  add: SourceEntries,
): { ok: true; list: SourceList } | { ok: false; fields: Record<string, string> } {
  const zones = [...new Set([...list.zones, ...(add.zones ?? [])])];
  const sites = [...new Set([...list.sites, ...(add.sites ?? [])])];
  const n = zones.length + sites.length;
  if (n > MAX_SOURCE_ENTRIES) {
    const fields: Record<string, string> = {};
    // Named on what the request sent: that is what made the list too long.
    if (add.zones?.length) fields.zones = tooManySources(n);
    if (add.sites?.length) fields.sites = tooManySources(n);
    return { ok: false, fields };
  }
  return { ok: true, list: { mode: list.mode, zones, sites } };
}

/** The list less `remove`; entries it does not hold are ignored, so removing twice is removing once. */
export function removeSources(list: SourceList, remove: SourceEntries): SourceList {
  const zones = new Set(remove.zones ?? []);
  const sites = new Set(remove.sites ?? []);
  return {
    mode: list.mode,
    zones: list.zones.filter((z) => !zones.has(z)),
    sites: list.sites.filter((s) => !sites.has(s)),
  };
}
