// One visitor's audience memberships in Redis (docs/audiences.md), written by the engines (impressions, clicks,
// pixel hits) and the admin (approved conversions), read by the engines: the script and its reply, no client.

export { audienceMembersKey } from './redis-keys.ts';

/**
 * KEYS: the visitor's hash. ARGV: now (ms), then pairs of audience id and the membership's end (ms). A later
 * end already held is kept; ended memberships are dropped; the key lives until its last membership ends.
 */
export const ADD_MEMBERSHIPS = `
local key, now = KEYS[1], tonumber(ARGV[1])
for i = 2, #ARGV, 2 do
  local held = tonumber(redis.call('HGET', key, ARGV[i]) or '0')
  if held < tonumber(ARGV[i + 1]) then redis.call('HSET', key, ARGV[i], ARGV[i + 1]) end
end
local last = 0
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
  local ends = tonumber(all[i + 1]) or 0
  if ends <= now then redis.call('HDEL', key, all[i]) elseif ends > last then last = ends end
end
if last > now and redis.call('PTTL', key) < last - now then redis.call('PEXPIRE', key, last - now) end
return 1
`;

/** The script's ARGV after `now`: each membership as its audience id and end. */
export const membershipArgs = (memberships: readonly { audienceId: number; ends: number }[]): number[] =>
  memberships.flatMap((m) => [m.audienceId, m.ends]);

/** HGETALL of a visitor's hash as audience id to end (ms); fields that are not ids are ignored. */
export function decodeMemberships(fields: Record<string, string>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [field, value] of Object.entries(fields)) {
    const id = Number(field);
    const ends = Number(value);
    if (Number.isInteger(id) && id > 0 && Number.isFinite(ends)) out.set(id, ends);
  }
  return out;
}
