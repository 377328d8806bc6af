import type { Orientation } from '@adnet/schemas/ai';
import { ORIENTATIONS, httpUrlSchema } from '@adnet/schemas/api';
import type { VideoConfig } from '@adnet/schemas/config';
import { z } from 'zod';
import type { ProviderState } from '../domain/video-jobs.ts';
import { speechSeconds } from '../domain/video-jobs.ts';

export interface VideoRequest {
  jobId: number;
  avatarId: string;
  voiceId: string;
  script: string;
  language: string;
  orientation: Orientation;
}

export interface VideoProvider {
  readonly name: 'http' | 'local';
  /** Starts a job at the provider; throws VideoProviderError when it refuses or cannot be reached. */
  create(req: VideoRequest): Promise<string>;
  /** Throws VideoProviderError when the provider cannot be asked right now (the poller tries again). */
  poll(providerJobId: string): Promise<ProviderState>;
}

export class VideoProviderError extends Error {}

export const MAX_SAMPLE_SECONDS = 600;
export const sampleVideoPath = (orientation: Orientation, seconds: number): string =>
  `/media/sample/avatar-${orientation}-${seconds}s.mp4`;
const SAMPLE_PATH_RE = new RegExp(`^/media/sample/avatar-(${ORIENTATIONS.join('|')})-(\\d{1,3})s\\.mp4$`);

/** Duration asked for by a sample path, or undefined when it is not one. */
export function parseSamplePath(path: string): number | undefined {
  const m = SAMPLE_PATH_RE.exec(path);
  const sec = Number(m?.[2]);
  return m && sec >= 1 && sec <= MAX_SAMPLE_SECONDS ? sec : undefined;
}

/**
 * The quickstart's provider: a job is done `delayMs` after it starts, with the
 * sample video served by this product. Its job id carries everything needed
 * to answer (orientation, ready time, duration), so jobs survive restarts
 * without any provider-side state.
 */
export class LocalVideoProvider implements VideoProvider {
  readonly name = 'local';
  constructor(
    private readonly baseUrl: string,
    private readonly delayMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  create(req: VideoRequest): Promise<string> {
    const seconds = Math.min(speechSeconds(req.script), MAX_SAMPLE_SECONDS);
    return Promise.resolve(`local.${req.orientation}.${this.now() + this.delayMs}.${seconds}`);
  }

  poll(providerJobId: string): Promise<ProviderState> {
    const [, orientation, readyAt, seconds] = providerJobId.split('.');
    const o = ORIENTATIONS.find((x) => x === orientation);
    if (!o || !readyAt || !seconds) return Promise.resolve({ status: 'failed', reason: 'unknown local job id' });
    if (this.now() < Number(readyAt)) return Promise.resolve({ status: 'processing' });
    return Promise.resolve({
      status: 'completed',
      videoUrl: this.baseUrl + sampleVideoPath(o, Number(seconds)),
      durationSec: Number(seconds),
    });
  }
}

const createdSchema = z.object({ id: z.union([z.string().min(1), z.number()]).transform(String) });
const statusSchema = z.discriminatedUnion('status', [
  z.object({ status: z.enum(['queued', 'processing']) }),
  z.object({ status: z.literal('completed'), video_url: httpUrlSchema, duration_sec: z.number().min(0) }),
  z.object({ status: z.literal('failed'), error: z.string().optional() }),
]);

/** The avatar-video HTTP protocol this product speaks (documented in admin/docs/api.md). */
export class HttpVideoProvider implements VideoProvider {
  readonly name = 'http';
  constructor(private readonly cfg: VideoConfig & { baseUrl: string }) {}

  async create(req: VideoRequest): Promise<string> {
    const body = await this.request('POST', '/v1/videos', {
      avatar_id: req.avatarId,
      voice_id: req.voiceId,
      script: req.script,
      language: req.language,
      orientation: req.orientation,
      reference: String(req.jobId),
    });
    const parsed = createdSchema.safeParse(body);
    if (!parsed.success) throw new VideoProviderError('the video provider answered without a job id');
    return parsed.data.id;
  }

  async poll(providerJobId: string): Promise<ProviderState> {
    const parsed = statusSchema.safeParse(await this.request('GET', `/v1/videos/${encodeURIComponent(providerJobId)}`));
    if (!parsed.success) throw new VideoProviderError('the video provider sent an unreadable job status');
    const s = parsed.data;
    if (s.status === 'completed')
      return { status: 'completed', videoUrl: s.video_url, durationSec: Math.round(s.duration_sec) };
    if (s.status === 'failed') return { status: 'failed', reason: s.error ?? 'the video provider failed the job' };
    return { status: 'processing' };
  }

  private async request(method: string, path: string, json?: unknown): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(this.cfg.baseUrl + path, {
        method,
        headers: {
          accept: 'application/json',
          ...(json ? { 'content-type': 'application/json' } : {}),
          ...(this.cfg.apiKey ? { authorization: `Bearer ${this.cfg.apiKey}` } : {}),
        },
        body: json ? JSON.stringify(json) : undefined,
        signal: AbortSignal.timeout(this.cfg.timeoutMs),
      });
    } catch (err) {
      throw new VideoProviderError(
        err instanceof Error && err.name === 'TimeoutError'
          ? 'the video provider timed out'
          : 'the video provider could not be reached',
      );
    }
    const text = await res.text().catch(() => '');
    // A 404 on poll means the provider lost the job: report it as failed rather than retry forever.
    if (res.status === 404 && method === 'GET')
      return { status: 'failed', error: 'the video provider does not know this job' };
    if (!res.ok) throw new VideoProviderError(`the video provider failed with HTTP ${res.status}`);
    try {
      return JSON.parse(text) as unknown;
    } catch {
      throw new VideoProviderError('the video provider answered with something other than JSON');
    }
  }
}

export function createVideoProvider(cfg: VideoConfig, baseUrl: string): VideoProvider {
  return cfg.baseUrl
    ? new HttpVideoProvider({ ...cfg, baseUrl: cfg.baseUrl })
    : new LocalVideoProvider(baseUrl, cfg.localDelayMs);
}
