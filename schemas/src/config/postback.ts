import { z } from 'zod';
import { bool } from './fields.ts';

/** Outgoing postbacks to advertisers' trackers. */
export const postbackSlice = z
  .object({
    /** Outgoing postbacks: time limit of one attempt, its name lookups and redirects included. */
    POSTBACK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
    /** Outgoing postbacks: attempts in flight at once in one admin process, over all trackers. */
    POSTBACK_CONCURRENCY: z.coerce.number().int().min(1).max(256).default(16),
    /**
     * Outgoing postbacks: attempts in flight at once to one tracker host, and for one advertiser; a host
     * that times out gets no more attempts in that pass.
     */
    POSTBACK_HOST_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
    /** Outgoing postbacks: how often the worker looks for due attempts. */
    POSTBACK_POLL_MS: z.coerce.number().int().min(50).max(60_000).default(1_000),
    /** Tests and local development only: let outgoing postbacks reach loopback addresses. */
    POSTBACK_ALLOW_LOOPBACK: bool.default(false),
  })
  .transform((e) => ({
    timeoutMs: e.POSTBACK_TIMEOUT_MS,
    pollMs: e.POSTBACK_POLL_MS,
    allowLoopback: e.POSTBACK_ALLOW_LOOPBACK,
    concurrency: e.POSTBACK_CONCURRENCY,
    hostConcurrency: e.POSTBACK_HOST_CONCURRENCY,
  }));
export type PostbackConfig = z.output<typeof postbackSlice>;
