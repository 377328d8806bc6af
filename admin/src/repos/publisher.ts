import type { Site, StoredSite, StoredZone, Zone } from '@adnet/schemas/publisher';
import { DEFAULT_PUSH_PROMPT } from '@adnet/schemas/push';
import { DEFAULT_AD_LABEL, VIDEO_ZONE_FORMATS, interstitialSettingsOf, popSettingsOf } from '@adnet/schemas/publisher';
import { controlsOut } from '@adnet/schemas/publisher-controls';
import { zoneVastUrl } from '@adnet/schemas/vast';
import type { Services } from '../services.ts';
import { cfgIndex } from '../storage/keys.ts';
import { loadEntity, updateEntity } from './owned-entity.ts';

export const publisherSitesIndex = (publisherId: number): string => cfgIndex('pub-sites', publisherId);
export const publisherDomainsIndex = (publisherId: number): string => cfgIndex('pub-domains', publisherId);
export const publisherZonesIndex = (publisherId: number): string => cfgIndex('pub-zones', publisherId);
export const SUBIDS = cfgIndex('subids', 'all');
export const SITE_REVIEW_QUEUE = cfgIndex('moderation', 'sites');
export const APPROVED_SITES = cfgIndex('sites', 'approved');

/** The network's own domain, as publishers list it in ads.txt and sellers.json. */
export const networkDomain = (svc: Services): string => new URL(svc.config.server.baseUrl).hostname;

/** The ads.txt line a publisher adds to each of its sites: `<network domain>, <publisher id>, DIRECT`. */
export const adsTxtLine = (svc: Services, publisherId: number): string =>
  `${networkDomain(svc)}, ${publisherId}, DIRECT`;

export function siteOut(svc: Services, stored: StoredSite): Site {
  const { floor_cpm_micro_cents: _floor, ...s } = stored;
  return {
    ...s,
    ads_txt_line: adsTxtLine(svc, s.publisher_id),
    ads_txt_status: s.ads_txt_status ?? null,
    ads_txt_checked_at: s.ads_txt_checked_at ?? null,
    ...controlsOut(stored),
  };
}

/** Publishers who asked sellers.json not to name them (`sellers_json_confidential`): a set of publisher ids. */

export function zoneOut(svc: Services, stored: StoredZone): Zone {
  const { floor_cpm_micro_cents: _floor, ...z } = stored;
  // The widget and VAST are ad paths: on the cookieless ad origin when there is one.
  const base = svc.config.server.adBaseUrl;
  const push_prompt = z.format === 'push' ? (z.push_prompt ?? DEFAULT_PUSH_PROMPT) : null;
  const out: Zone = {
    ...z,
    ...controlsOut(stored),
    push_prompt,
    ...popSettingsOf(z.format, z),
    ...interstitialSettingsOf(z.format, z),
    ad_label: z.ad_label ?? DEFAULT_AD_LABEL,
    widget_url: `${base}/w/${z.subid}.js`,
  };
  if (z.format === 'direct_link') out.go_url = `${base}/go/${z.subid}`;
  if (VIDEO_ZONE_FORMATS.has(z.format)) {
    out.vast_url = zoneVastUrl(base, z.subid);
    out.vast_urls = {
      '2.0': zoneVastUrl(base, z.subid, '2.0'),
      '3.0': zoneVastUrl(base, z.subid, '3.0'),
      '4.0': out.vast_url,
    };
  }
  if (z.format === 'push') out.push_worker_url = `${base}/push/sw.js`;
  return out;
}

export const loadOwnedSite = (svc: Services, publisherId: number, id: number) =>
  loadEntity<StoredSite>(svc.configStore, { kind: 'site', id, label: 'Site', owner: publisherId });
export const loadOwnedZone = (svc: Services, publisherId: number, id: number) =>
  loadEntity<StoredZone>(svc.configStore, { kind: 'zone', id, label: 'Zone', owner: publisherId });

export async function listOwned<T extends { id: number }>(
  svc: Services,
  kind: 'site' | 'zone',
  indexKey: string,
): Promise<T[]> {
  return (await svc.configStore.readIndexed<T>(kind, indexKey)).sort((a, b) => a.id - b.id);
}

/**
 * IAB sellers.json 1.0: every publisher with an approved site, named by its first approved domain; a publisher
 * who asked for it (`sellers_json_confidential`) is listed `is_confidential: 1` without name or domain, as the
 * specification allows for a seller that is an individual.
 */
export async function sellersJson(svc: Services): Promise<Record<string, unknown>> {
  const [approved, hidden] = await Promise.all([
    svc.configStore.readIndexed<StoredSite>('site', APPROVED_SITES),
    svc.confidentialSellers.all(),
  ]);
  const sites = approved.filter((s) => s.status === 'approved').sort((a, b) => a.id - b.id);
  const byPublisher = new Map<number, StoredSite>();
  for (const s of sites) if (!byPublisher.has(s.publisher_id)) byPublisher.set(s.publisher_id, s);
  return {
    version: '1.0',
    contact_address: networkDomain(svc),
    sellers: [...byPublisher.values()].map((s) =>
      hidden.has(String(s.publisher_id))
        ? { seller_id: String(s.publisher_id), is_confidential: 1, seller_type: 'PUBLISHER' }
        : { seller_id: String(s.publisher_id), name: s.domain, domain: s.domain, seller_type: 'PUBLISHER' },
    ),
  };
}

/**
 * The operator approves a site without its ownership check, which cannot reach a domain that exists only
 * on this machine (the demo site, `pnpm adnet demo`): the site's zones serve from then on. An admin's
 * review through the API still asks for a verified site (trpc/routers/sites.ts).
 */
export function approveSiteByOperator(svc: Services, id: number): Promise<StoredSite> {
  return updateEntity<StoredSite>(
    svc.configStore,
    { kind: 'site', id, label: 'Site' },
    {
      patch: { status: 'approved', verified_method: 'operator', rejection_reason: null },
      ops: () => [
        { cmd: 'ZREM', key: SITE_REVIEW_QUEUE, member: id },
        { cmd: 'SADD', key: APPROVED_SITES, member: id },
      ],
    },
  );
}
