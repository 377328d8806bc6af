import { moderationWaitText } from '@adnet/schemas/moderation-wait';
import { api } from './api.ts';

/**
 * The wait of a creative uploaded now, in words, asked of the API each time a page shows it: the same estimate and
 * wording as the upload's answer and the emails, never a figure of the cabinet's own.
 */
export async function moderationWait(): Promise<string> {
  return moderationWaitText((await api.auth.me.query()).moderation_eta_seconds);
}
