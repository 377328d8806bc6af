import { z } from 'zod';
import { addressList, bool, list } from './fields.ts';

/** The admin's API: accounts and sign-in, rate limits, moderation estimates, the config change log. */
export const adminSlice = z
  .object({
    /** Allow self sign-up of advertisers and publishers. */
    REGISTRATION_ENABLED: bool.default(true),
    /** Bearer token lifetime, in days. */
    TOKEN_TTL_DAYS: z.coerce.number().int().min(1).max(365).default(30),
    /** API requests per minute per token, counted across instances. */
    API_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(60),
    /**
     * Sign-in and sign-up attempts per minute per client address (an IPv6 client by its /64), counted across
     * instances. Sign-in also backs off per account and client network after repeated wrong passwords (docs/security.md).
     */
    AUTH_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(20),
    /**
     * Proxies whose `X-Forwarded-For` the admin believes when it limits sign-in and sign-up by client address
     * (addresses or CIDR blocks, comma-separated): the client is the rightmost address in the header that is not one
     * of them. The default, loopback, is the engines' own forwarding in `pnpm start`; add a load balancer that
     * reaches the admin directly.
     */
    ADMIN_TRUSTED_PROXIES: addressList('127.0.0.0/8,::1'),
    /**
     * scrypt cost of new password hashes, as log2 of N (with r=8, p=1). 17 is OWASP's minimum (128 MiB per hash);
     * lower it only in tests. A stored hash carries its own cost and is rehashed at the next sign-in when it differs.
     */
    PASSWORD_SCRYPT_LOG_N: z.coerce.number().int().min(10).max(18).default(17),
    /**
     * Moderation estimate for a new creative: this base plus MODERATION_ETA_PER_ITEM_SECONDS per creative waiting
     * ahead of it, at most two days. The one moderation time the product quotes: the upload's answer, `auth.me` (the
     * cabinet's checklist, overview and notices) and the rejection email.
     */
    MODERATION_ETA_BASE_SECONDS: z.coerce
      .number()
      .int()
      .min(0)
      .max(7 * 86_400)
      .default(900),
    /** Moderation estimate: added per creative waiting ahead. */
    MODERATION_ETA_PER_ITEM_SECONDS: z.coerce.number().int().min(0).max(86_400).default(60),
    /** Config change-log entries kept in Redis before old ones are trimmed. */
    CHANGE_LOG_MAX_LEN: z.coerce.number().int().min(1_000).max(10_000_000).default(100_000),
    /** API requests per minute per API key, counted across instances (separate from API_RATE_LIMIT_PER_MIN). */
    API_KEY_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(600),
    /**
     * Milliseconds between passes of the target-CPA controller, which sets the zone bids and exclusions of campaigns
     * with a `target_cpa_usd` (one admin process runs each pass).
     */
    TARGET_CPA_PASS_MS: z.coerce.number().int().min(100).max(86_400_000).default(60_000),
  })
  .transform((e) => ({
    registrationEnabled: e.REGISTRATION_ENABLED,
    tokenTtlSeconds: e.TOKEN_TTL_DAYS * 86_400,
    apiRateLimitPerMin: e.API_RATE_LIMIT_PER_MIN,
    apiKeyRateLimitPerMin: e.API_KEY_RATE_LIMIT_PER_MIN,
    authRateLimitPerMin: e.AUTH_RATE_LIMIT_PER_MIN,
    trustedProxies: list(e.ADMIN_TRUSTED_PROXIES),
    passwordScrypt: { N: 2 ** e.PASSWORD_SCRYPT_LOG_N, r: 8, p: 1 },
    moderationEtaBaseSeconds: e.MODERATION_ETA_BASE_SECONDS,
    moderationEtaPerItemSeconds: e.MODERATION_ETA_PER_ITEM_SECONDS,
    changeLogMaxLen: e.CHANGE_LOG_MAX_LEN,
    targetCpaPassMs: e.TARGET_CPA_PASS_MS,
  }));
export type AdminSlice = z.output<typeof adminSlice>;
