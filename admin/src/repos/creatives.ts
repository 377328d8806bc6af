import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import { randomBytes } from 'node:crypto';
import { moderationEtaSeconds } from '../domain/moderation-eta.ts';
import { notFound } from '../errors.ts';
import type { Services } from '../services.ts';
import { CFG_MODERATION_QUEUE } from '../storage/keys.ts';
import { campaignApprovedIndex, campaignCreativesIndex } from './campaigns.ts';

/** The parts of a creative its author supplies, already checked against the campaign's format. */
export type CreativeContent = Pick<
  Creative,
  | 'title'
  | 'body'
  | 'landing_url'
  | 'cta_text'
  | 'image_url'
  | 'image_width'
  | 'image_height'
  | 'video_url'
  | 'orientation'
> & { weight?: number; duration_s?: number | null };

/** Stores a new creative waiting for moderation; every way of adding a creative ends here. */
export async function saveCreative(
  svc: Services,
  campaign: StoredCampaign,
  content: CreativeContent,
): Promise<Creative & { moderation_eta_seconds: number }> {
  const id = await svc.configStore.nextId('creative');
  const now = new Date();
  const creative: Creative = {
    id,
    campaign_id: campaign.id,
    advertiser_id: campaign.advertiser_id,
    format: campaign.format,
    ...content,
    weight: content.weight ?? 100,
    status: 'pending_moderation',
    rejection_reason: null,
    tracking_token: randomBytes(18).toString('base64url'),
    created_at: now.toISOString(),
    moderated_at: null,
  };
  const ahead = await svc.configStore.countRanked(CFG_MODERATION_QUEUE);
  await svc.configStore.commit('creative', id, {
    expectedRev: 0,
    value: creative,
    ops: [
      { cmd: 'SADD', key: campaignCreativesIndex(campaign.id), member: id },
      { cmd: 'ZADD', key: CFG_MODERATION_QUEUE, member: id, score: now.getTime() },
    ],
  });
  svc.log.info({ event: 'creative.created', creativeId: id, campaignId: campaign.id }, 'creative created');
  return { ...creative, moderation_eta_seconds: etaBehind(svc, ahead) };
}

const etaBehind = (svc: Pick<Services, 'config'>, ahead: number): number =>
  moderationEtaSeconds(ahead, svc.config.admin.moderationEtaBaseSeconds, svc.config.admin.moderationEtaPerItemSeconds);

/**
 * The wait of a creative uploaded now, behind the queue as it is: the one estimate the cabinet's texts (auth.me) and
 * the emails quote.
 */
export async function currentModerationEta(svc: Pick<Services, 'config' | 'configStore'>): Promise<number> {
  return etaBehind(svc, await svc.configStore.countRanked(CFG_MODERATION_QUEUE));
}

export async function listCampaignCreatives(svc: Services, campaignId: number): Promise<Creative[]> {
  return (await svc.configStore.readIndexed<Creative>('creative', campaignCreativesIndex(campaignId))).sort(
    (a, b) => a.id - b.id,
  );
}

/** Oldest first, as reviewers work through it. */
export async function moderationQueue(svc: Services, limit: number): Promise<Creative[]> {
  const ids = await svc.configStore.ranked(CFG_MODERATION_QUEUE, limit);
  return (await svc.configStore.readMany<Creative>('creative', ids)).filter((c) => c.status === 'pending_moderation');
}

export async function loadCreative(svc: Services, id: number): Promise<Creative> {
  const found = await svc.configStore.read<Creative>('creative', id);
  if (!found) throw notFound('Creative');
  return found.value;
}

/**
 * Copies a campaign's live creatives to another campaign of the same advertiser (duplication).
 * Content that moderation approved keeps its state, approved or paused (the same bytes and landing
 * URL were reviewed); creatives still waiting are queued again; rejected and archived ones are not
 * copied.
 */
export async function copyCreatives(svc: Services, from: Creative[], to: StoredCampaign): Promise<number> {
  let copied = 0;
  for (const c of from) {
    if (c.status === 'rejected' || c.status === 'archived') continue;
    const reviewed = c.status === 'approved' || c.status === 'paused';
    const id = await svc.configStore.nextId('creative');
    const now = new Date();
    const copy: Creative = {
      ...c,
      id,
      campaign_id: to.id,
      status: reviewed ? c.status : 'pending_moderation',
      tracking_token: randomBytes(18).toString('base64url'),
      created_at: now.toISOString(),
      moderated_at: reviewed ? c.moderated_at : null,
    };
    await svc.configStore.commit('creative', id, {
      expectedRev: 0,
      value: copy,
      ops: [
        { cmd: 'SADD', key: campaignCreativesIndex(to.id), member: id },
        // The approved index is what activation and the delivery status count.
        ...(c.status === 'approved' ? [{ cmd: 'SADD' as const, key: campaignApprovedIndex(to.id), member: id }] : []),
        ...(reviewed ? [] : [{ cmd: 'ZADD' as const, key: CFG_MODERATION_QUEUE, member: id, score: now.getTime() }]),
      ],
    });
    copied++;
  }
  return copied;
}
