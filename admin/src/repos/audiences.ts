import type { Audience, StoredAudience } from '@adnet/schemas/audiences';
import { pixelPath } from '@adnet/schemas/audiences';
import type { StoredCampaign } from '@adnet/schemas/api';
import { fieldErrors, forbidden, notFound } from '../errors.ts';
import type { Services } from '../services.ts';
import { addMemberships } from '../storage/audience-members.ts';
import { cfgIndex } from '../storage/keys.ts';

export const advertiserAudiencesIndex = (advertiserId: number): string => cfgIndex('adv-audiences', advertiserId);

const DAY_MS = 86_400_000;

/** The API's audience: the pixel's token only inside its URL, on the ad origin (where the widget's requests go too). */
export const audienceAnswer = (svc: Services, a: StoredAudience): Audience => ({
  id: a.id,
  advertiser_id: a.advertiser_id,
  name: a.name,
  source: a.source,
  campaign_ids: a.campaign_ids,
  lifetime_days: a.lifetime_days,
  created_at: a.created_at,
  pixel_url: a.pixel_token ? `${svc.config.server.adBaseUrl}${pixelPath(a.pixel_token)}` : null,
});

export async function listAudiences(svc: Services, advertiserId: number): Promise<StoredAudience[]> {
  const all = await svc.configStore.readIndexed<StoredAudience>('audience', advertiserAudiencesIndex(advertiserId));
  return all.sort((a, b) => a.id - b.id);
}

/** 404 when it does not exist, 403 when it is another advertiser's. */
export async function loadOwnedAudience(
  svc: Services,
  advertiserId: number,
  id: number,
): Promise<{ value: StoredAudience; rev: number }> {
  const found = await svc.configStore.read<StoredAudience>('audience', id);
  if (!found) throw notFound('Audience');
  if (found.value.advertiser_id !== advertiserId) throw forbidden();
  return found;
}

/** Campaigns an audience names must exist (400 naming the field) and be the advertiser's own (403). */
export async function checkAudienceCampaigns(svc: Services, advertiserId: number, ids: readonly number[]) {
  const found = await svc.configStore.readEach<StoredCampaign>('campaign', ids);
  const missing = ids.filter((_, i) => found[i] === undefined);
  if (missing.length) throw fieldErrors({ campaign_ids: `unknown campaign id(s): ${missing.join(', ')}` });
  if (found.some((c) => c?.advertiser_id !== advertiserId))
    throw forbidden('campaign_ids names a campaign of another advertiser');
}

/**
 * A campaign's audience lists must name existing audiences (400 naming the list) of the advertiser's own (403),
 * and no audience in both.
 */
export async function checkCampaignAudiences(
  svc: Services,
  advertiserId: number,
  lists: { audiences_include?: readonly number[] | undefined; audiences_exclude?: readonly number[] | undefined },
): Promise<void> {
  const errors: Record<string, string> = {};
  let foreign = false;
  for (const field of ['audiences_include', 'audiences_exclude'] as const) {
    const ids = lists[field];
    if (!ids?.length) continue;
    const found = await svc.configStore.readEach<StoredAudience>('audience', ids);
    const missing = ids.filter((_, i) => found[i] === undefined);
    if (missing.length) errors[field] = `unknown audience id(s): ${missing.join(', ')}`;
    else if (found.some((a) => a?.advertiser_id !== advertiserId)) foreign = true;
  }
  const both = (lists.audiences_include ?? []).filter((id) => lists.audiences_exclude?.includes(id));
  if (both.length && !errors.audiences_exclude)
    errors.audiences_exclude = `must not name an audience audiences_include names: ${both.join(', ')}`;
  if (Object.keys(errors).length) throw fieldErrors(errors);
  if (foreign) throw forbidden('An audience list names an audience of another advertiser');
}

/** The advertiser's campaigns that include or exclude the audience: it cannot go while they name it. */
export const campaignsNaming = (campaigns: readonly StoredCampaign[], audienceId: number): number[] =>
  campaigns
    .filter((c) => c.audiences_include?.includes(audienceId) || c.audiences_exclude?.includes(audienceId))
    .map((c) => c.id);

/**
 * An approved conversion's viewer joins the advertiser's `converted` audiences that name its campaign, for each
 * audience's lifetime. The click record names the viewer only when an audience watched the campaign at the click
 * and the request allowed user-level processing (engine/src/auction/count-click.ts).
 */
export async function joinConverters(
  svc: Services,
  click: { advertiser_id: number; campaign_id: number; user?: string | undefined },
  now: number,
): Promise<void> {
  if (!click.user) return;
  const audiences = (await listAudiences(svc, click.advertiser_id)).filter(
    (a) => a.source === 'converted' && a.campaign_ids.includes(click.campaign_id),
  );
  const memberships = audiences.map((a) => ({ audienceId: a.id, ends: now + a.lifetime_days * DAY_MS }));
  await addMemberships(svc.redis, click.user, memberships, now);
}
