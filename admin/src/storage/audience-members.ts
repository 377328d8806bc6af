import { ADD_MEMBERSHIPS, audienceMembersKey, membershipArgs } from '@adnet/schemas/wire/audience-members';
import type { Redis } from './redis.ts';

/**
 * Makes a visitor (its key, as click records carry it) a member of audiences until each end: the admin's part
 * of the memberships the engines read (docs/audiences.md), for conversions. One call per approved conversion.
 */
export async function addMemberships(
  redis: Redis,
  userKey: string,
  memberships: readonly { audienceId: number; ends: number }[],
  now: number,
): Promise<void> {
  if (memberships.length === 0) return;
  await redis.eval(ADD_MEMBERSHIPS, 1, audienceMembersKey(userKey), now, ...membershipArgs(memberships));
}
