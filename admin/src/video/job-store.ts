import { VIDEO_JOB_STATUSES } from '@adnet/schemas/ai';
import type { Orientation, VideoJobStatus, VideoJobView } from '@adnet/schemas/ai';
import { ORIENTATIONS } from '@adnet/schemas/api';
import type { Result } from 'ioredis';
import { idCounter } from '../storage/keys.ts';
import type { Redis } from '../storage/redis.ts';

// Job hashes and the due set share the {video} slot so one script can touch both.
const jobKey = (id: number): string => `{video}:job:${id}`;
const DUE = '{video}:due';

// Takes due jobs and pushes each one's due time past a lease in the same step,
// so two admin instances never poll one job at once; a poller that dies leaves
// the job due again when the lease runs out.
const CLAIM_LUA = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, id in ipairs(ids) do redis.call('ZADD', KEYS[1], ARGV[2], id) end
return ids
`;
// Only a processing job moves, exactly once: the caller refunds only when this returns 1.
const FINISH_LUA = `
if redis.call('HGET', KEYS[1], 'status') ~= 'processing' then return 0 end
redis.call('HSET', KEYS[1], 'status', ARGV[2], 'video_url', ARGV[3], 'duration_sec', ARGV[4], 'reason', ARGV[5], 'updated_at', ARGV[6])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`;

declare module 'ioredis' {
  interface RedisCommander<Context> {
    videoClaim(numKeys: number, ...args: (string | number)[]): Result<string[], Context>;
    videoFinish(numKeys: number, ...args: (string | number)[]): Result<number, Context>;
  }
}

export interface VideoJob extends VideoJobView {
  advertiser_id: number;
  provider: string;
  provider_job_id: string;
}

export type NewJob = Omit<VideoJob, 'status' | 'video_url' | 'duration_sec' | 'reason' | 'updated_at' | 'job_id'>;

export class VideoJobStore {
  constructor(private readonly redis: Redis) {
    redis.defineCommand('videoClaim', { lua: CLAIM_LUA });
    redis.defineCommand('videoFinish', { lua: FINISH_LUA });
  }

  nextId(): Promise<number> {
    return this.redis.incr(idCounter('video-job'));
  }

  /** Stores a processing job, first due for a poll at `dueAt`. */
  async create(id: number, job: NewJob, dueAt: number): Promise<VideoJob> {
    const full: VideoJob = {
      ...job,
      job_id: id,
      status: 'processing',
      video_url: null,
      duration_sec: null,
      reason: null,
      updated_at: job.created_at,
    };
    await this.redis
      .multi()
      .hset(jobKey(id), {
        ...full,
        video_url: '',
        duration_sec: '',
        reason: '',
      })
      .zadd(DUE, dueAt, String(id))
      .exec();
    return full;
  }

  async get(id: number): Promise<VideoJob | undefined> {
    const h = await this.redis.hgetall(jobKey(id));
    if (!h.job_id) return undefined;
    return {
      job_id: Number(h.job_id),
      advertiser_id: Number(h.advertiser_id),
      campaign_id: Number(h.campaign_id),
      provider: h.provider ?? '',
      provider_job_id: h.provider_job_id ?? '',
      status: VIDEO_JOB_STATUSES.find((s) => s === h.status) ?? 'failed',
      video_url: h.video_url || null,
      duration_sec: h.duration_sec ? Number(h.duration_sec) : null,
      reason: h.reason || null,
      orientation: ORIENTATIONS.find((o): o is Orientation => o === h.orientation) ?? 'vertical',
      cost_cents: Number(h.cost_cents),
      created_at: h.created_at ?? '',
      updated_at: h.updated_at ?? '',
    };
  }

  /** Up to `limit` job ids due at `now`, each leased until `now + leaseMs`. */
  claimDue(now: number, leaseMs: number, limit: number): Promise<string[]> {
    return this.redis.videoClaim(1, DUE, now, now + leaseMs, limit);
  }

  /** Next poll time of a job still processing (ignored for jobs already finished). */
  async reschedule(id: number, dueAt: number): Promise<void> {
    await this.redis.zadd(DUE, 'XX', dueAt, String(id));
  }

  async forget(id: number): Promise<void> {
    await this.redis.zrem(DUE, String(id));
  }

  /** True when this call moved the job out of processing. */
  async finish(
    id: number,
    to: Exclude<VideoJobStatus, 'processing'>,
    fields: { videoUrl?: string; durationSec?: number; reason?: string },
    now: Date,
  ): Promise<boolean> {
    const moved = await this.redis.videoFinish(
      2,
      jobKey(id),
      DUE,
      String(id),
      to,
      fields.videoUrl ?? '',
      fields.durationSec ?? '',
      fields.reason ?? '',
      now.toISOString(),
    );
    return moved === 1;
  }
}
