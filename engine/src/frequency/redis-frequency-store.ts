import { frequencyKey } from '@adnet/schemas/redis-keys';
import type { Redis, Result } from 'ioredis';
import { defineRequestScript } from '../store/send-at-once.ts';
import type { FrequencyStore } from './frequency-caps.ts';
import type { CapCount } from './user-counts.ts';

// One hash per user: `n:<campaign>` ads counted in the campaign's current period, `w:<campaign>` when
// that period ends (ms since the epoch), `e:<campaign>:<engine>` those of them the engine served.
// A period starts at the first ad counted after the last one ended; its per-engine fields go with
// it. The key lives until the last of its periods ends, so nothing outlives the longest period.

/** KEYS: the user's hash. ARGV: campaign, serving engine, now (ms), period (ms). Returns the period's count. */
const COUNT = `
local key, c, prefix = KEYS[1], ARGV[1], 'e:' .. ARGV[1] .. ':'
local now, period = tonumber(ARGV[3]), tonumber(ARGV[4])
local ends = tonumber(redis.call('HGET', key, 'w:' .. c) or '0')
if ends <= now then
  for _, f in ipairs(redis.call('HKEYS', key)) do
    if string.sub(f, 1, #prefix) == prefix then redis.call('HDEL', key, f) end
  end
  ends = now + period
  redis.call('HSET', key, 'n:' .. c, 0, 'w:' .. c, ends)
end
local n = redis.call('HINCRBY', key, 'n:' .. c, 1)
redis.call('HINCRBY', key, prefix .. ARGV[2], 1)
if redis.call('PTTL', key) < ends - now then redis.call('PEXPIRE', key, ends - now) end
return n
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    fcapCount(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

/** The frequency counts of every engine, in Redis. */
export class RedisFrequencyStore implements FrequencyStore {
  constructor(
    private readonly redis: Redis,
    private readonly engineId: string,
  ) {
    // One call per counted ad of a capped campaign.
    defineRequestScript(redis, 'fcapCount', COUNT);
  }

  async read(userKey: string): Promise<Map<number, CapCount>> {
    return parseCounts(await this.redis.hgetall(frequencyKey(userKey)), this.engineId);
  }

  // eslint-disable-next-line @typescript-eslint/max-params -- hot path: counted for every capped impression served
  async count(userKey: string, campaignId: number, servedBy: string, now: number, periodMs: number): Promise<void> {
    await this.redis.fcapCount(1, frequencyKey(userKey), campaignId, servedBy, now, periodMs);
  }
}

/** A user's hash as counts per campaign, `own` being `engineId`'s. */
export function parseCounts(fields: Record<string, string>, engineId: string): Map<number, CapCount> {
  const out = new Map<number, CapCount>();
  const of = (id: number) => {
    let c = out.get(id);
    if (!c) out.set(id, (c = { total: 0, own: 0, ends: 0 }));
    return c;
  };
  for (const [field, value] of Object.entries(fields)) {
    const [kind, campaign, engine] = field.split(':');
    const id = Number(campaign);
    if (!Number.isInteger(id)) continue;
    if (kind === 'n') of(id).total = Number(value);
    else if (kind === 'w') of(id).ends = Number(value);
    else if (kind === 'e' && engine === engineId) of(id).own = Number(value);
  }
  return out;
}
