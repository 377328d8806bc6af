import type { Creative } from '@adnet/schemas/api';
import { notFound } from '../errors.ts';
import type { Services } from '../services.ts';
import { CFG_MODERATION_QUEUE } from '../storage/keys.ts';
import { campaignCreativesIndex } from './campaigns.ts';

export async function listCampaignCreatives(svc: Services, campaignId: number): Promise<Creative[]> {
  const ids = await svc.redis.smembers(campaignCreativesIndex(campaignId));
  return (await svc.configStore.readMany<Creative>('creative', ids)).sort((a, b) => a.id - b.id);
}

/** Oldest first, as reviewers work through it. */
export async function moderationQueue(svc: Services, limit: number): Promise<Creative[]> {
  const ids = await svc.redis.zrange(CFG_MODERATION_QUEUE, 0, limit - 1);
  return (await svc.configStore.readMany<Creative>('creative', ids)).filter((c) => c.status === 'pending_moderation');
}

export async function loadCreative(svc: Services, id: number): Promise<Creative> {
  const found = await svc.configStore.read<Creative>('creative', id);
  if (!found) throw notFound('Creative');
  return found.value;
}
