import { z } from 'zod';
import { trimUrl } from './fields.ts';

/** Avatar videos: the provider and the poller of its jobs. */
export const videoSlice = z
  .object({
    /**
     * Avatar-video API speaking the protocol in `admin/docs/api.md`. Unset: the local provider with the shipped sample
     * video.
     */
    VIDEO_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
    /** Bearer key for VIDEO_BASE_URL. */
    VIDEO_API_KEY: z.string().min(1).optional(),
    /** Time limit per request to the video provider. */
    VIDEO_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(15_000),
    /** Charged per video job, refunded if the job fails. */
    VIDEO_COST_CENTS: z.coerce.number().int().min(0).max(1_000_000).default(100),
    /** How often each admin process polls due video jobs. */
    VIDEO_POLL_INTERVAL_MS: z.coerce.number().int().min(10).max(3_600_000).default(2_000),
    /** How long a poller owns a job before another instance may take it over. */
    VIDEO_LEASE_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
    /** A job still processing after this long fails (and is refunded). */
    VIDEO_MAX_AGE_MS: z.coerce
      .number()
      .int()
      .min(1_000)
      .max(7 * 86_400_000)
      .default(3_600_000),
    /** Local provider: time until a job completes. */
    VIDEO_LOCAL_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(3_000),
  })
  .transform((e) => ({
    baseUrl: e.VIDEO_BASE_URL === undefined ? undefined : trimUrl(e.VIDEO_BASE_URL),
    apiKey: e.VIDEO_API_KEY,
    timeoutMs: e.VIDEO_TIMEOUT_MS,
    costCents: e.VIDEO_COST_CENTS,
    pollIntervalMs: e.VIDEO_POLL_INTERVAL_MS,
    leaseMs: e.VIDEO_LEASE_MS,
    maxAgeMs: e.VIDEO_MAX_AGE_MS,
    localDelayMs: e.VIDEO_LOCAL_DELAY_MS,
  }));
export type VideoConfig = z.output<typeof videoSlice>;
