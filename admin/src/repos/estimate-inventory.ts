import type { CampaignFormat } from '@adnet/schemas/api';
import type { StoredZone } from '@adnet/schemas/publisher';
import type { Services } from '../services.ts';
import { SUBIDS } from './publisher.ts';

// What the traffic estimate needs of the configuration: which of our zones carry a format (events name the
// zone, not its format) and which zones a source list's subids name.

/** How long one read of every zone's format serves the estimates (a form asks at every keystroke). */
const FORMATS_TTL_MS = 30_000;

interface ZoneFormats {
  at: number;
  byFormat: Promise<Map<CampaignFormat, number[]>>;
}
const cache = new WeakMap<Services, ZoneFormats>();

async function readZoneFormats(svc: Services): Promise<Map<CampaignFormat, number[]>> {
  // Every zone claims its subid in one hash: its values are every zone's id.
  const ids = [...new Set(await svc.redis.hvals(SUBIDS))];
  const zones = ids.length ? await svc.configStore.readMany<StoredZone>('zone', ids) : [];
  const byFormat = new Map<CampaignFormat, number[]>();
  for (const z of zones) byFormat.set(z.format, [...(byFormat.get(z.format) ?? []), z.id]);
  return byFormat;
}

/** The ids of our zones of `format`, read at most every 30 s per admin process (a new zone has no traffic yet). */
export async function zonesOfFormat(svc: Services, format: CampaignFormat, now = Date.now()): Promise<number[]> {
  let entry = cache.get(svc);
  if (!entry || now - entry.at > FORMATS_TTL_MS) {
    entry = { at: now, byFormat: readZoneFormats(svc) };
    cache.set(svc, entry);
    // A failed read is not kept: the next estimate reads again.
    entry.byFormat.catch(() => cache.delete(svc));
  }
  return (await entry.byFormat).get(format) ?? [];
}

/** The zone ids of these subids; subids we do not know name no zone. */
export async function zoneIdsOfSubids(svc: Services, subids: readonly string[]): Promise<number[]> {
  if (subids.length === 0) return [];
  const { claimants } = await svc.configStore.known(SUBIDS, subids, 'zone', []);
  return claimants.flatMap((id) => (id === null ? [] : [Number(id)]));
}
