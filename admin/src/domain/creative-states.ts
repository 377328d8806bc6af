import type { CreativeStatus } from '@adnet/schemas/api';

export type CreativeAction = 'pause' | 'resume' | 'archive';

export type CreativeMove = { ok: true; next: CreativeStatus; changed: boolean } | { ok: false; reason: string };

/**
 * The advertiser's moves on one creative (moderation moves are the admin's): approved <-> paused,
 * anything -> archived, which is final. Repeating a move that already holds succeeds without a
 * change, so clients can retry safely. Editing a creative's content is not a move here: it sends
 * the creative back to moderation (pending_moderation) from any state but archived.
 */
export function creativeMove(status: CreativeStatus, action: CreativeAction): CreativeMove {
  const same = (next: CreativeStatus): CreativeMove => ({ ok: true, next, changed: next !== status });
  if (status === 'archived')
    return action === 'archive' ? same('archived') : { ok: false, reason: 'An archived creative cannot change state' };
  switch (action) {
    case 'pause':
      if (status === 'approved' || status === 'paused') return same('paused');
      return { ok: false, reason: `Only an approved creative can be paused; this one is ${status}` };
    case 'resume':
      if (status === 'paused' || status === 'approved') return same('approved');
      return { ok: false, reason: `Only a paused creative can be resumed; this one is ${status}` };
    case 'archive':
      return same('archived');
  }
}
