import { z } from 'zod';
import { addressList, list } from './fields.ts';

/** The engine's hot paths: auctions, budgets, tracking while Redis is away, the admin behind it, pacing and rotation. */
export const engineSlice = z
  .object({
    /**
     * Signs win notices and impression pixels (HMAC-SHA256); every engine must have the same one. Unset: generated
     * once and kept in Redis.
     */
    TRACKING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Auction deadline cap from the moment the engine has the request; a bid request's `tmax` may shorten it. */
    AUCTION_TIMEOUT_MS: z.coerce.number().int().min(10).max(1_000).default(200),
    /** Largest bid request body; a larger one is answered 413. */
    MAX_BID_BODY_BYTES: z.coerce
      .number()
      .int()
      .min(1_024)
      .max(10 * 1024 * 1024)
      .default(64 * 1024),
    /** Budget an engine reserves from Redis at a time, per campaign and per advertiser. */
    BUDGET_SLICE_CENTS: z.coerce.number().int().min(1).max(1_000_000).default(25),
    /**
     * How long a tracking request (click, render beacon, VAST pixel, win notice) waits on Redis before it is answered
     * without it and journaled to local disk for replay (docs/operations.md#redis-outages).
     */
    REDIS_DEADLINE_MS: z.coerce.number().int().min(5).max(10_000).default(50),
    /** Most request records one engine's journal holds (MiB); past it a request is still answered but not kept. */
    JOURNAL_MAX_MB: z.coerce.number().int().min(1).max(65_536).default(256),
    /** How often journaled requests are written and synced to disk: a crash loses at most this long of them. */
    JOURNAL_FLUSH_MS: z.coerce.number().int().min(1).max(10_000).default(10),
    /**
     * Where an engine forwards every path it does not serve (the admin), so one base URL serves the whole
     * interface; `pnpm start` sets it for its engines. Unset: other paths answer 404 (engines behind a
     * balancer that routes the admin's paths itself).
     */
    ADMIN_UPSTREAM: z.url({ protocol: /^https?$/ }).optional(),
    /**
     * Load balancers whose `X-Forwarded-For` the engines believe (addresses or CIDR blocks, comma-separated): a
     * partner or visitor is then known by the rightmost address in the header that is not a trusted proxy, and
     * their `X-Country` / `CF-IPCountry` headers name a visitor's country (from anyone else they are ignored). Their
     * `X-Forwarded-Proto` is passed on to the admin (which makes the cabinet's session cookie Secure over https);
     * anyone else's request goes on as `http`.
     */
    TRUSTED_PROXIES: addressList(''),
    /**
     * Ad requests (`/imp`, `/vast`) one client address may make of one zone per minute, per engine; past it they are
     * invalid traffic (`address_flood`), answered without an ad. Generous: offices and mobile carriers share addresses.
     */
    ZONE_REQUESTS_PER_ADDRESS_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(600),
    /** Ad requests one browser fingerprint (the widget's `fp`) may make of one zone per minute, per engine (`fingerprint_flood`). */
    ZONE_REQUESTS_PER_FINGERPRINT_PER_MIN: z.coerce.number().int().min(1).max(1_000_000).default(30),
    /**
     * How often each engine steps the even-pacing controller of every campaign it serves, reading the spend of those
     * whose spend moved (docs/delivery.md). Above 70 000 every tick reads every campaign's: the marks of what moved
     * are kept 2 minutes.
     */
    PACING_TICK_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
    /**
     * How often each engine shares its creatives' counts and recomputes the rotation of the optimizing campaigns whose
     * counts moved (docs/delivery.md). Above 70 000 every refresh reads every campaign's counts: the marks of what moved
     * are kept 2 minutes.
     */
    ROTATION_REFRESH_MS: z.coerce.number().int().min(100).max(600_000).default(10_000),
  })
  .transform((e) => ({
    trackingSecret: e.TRACKING_SECRET,
    auctionTimeoutMs: e.AUCTION_TIMEOUT_MS,
    maxBidBodyBytes: e.MAX_BID_BODY_BYTES,
    budgetSliceCents: e.BUDGET_SLICE_CENTS,
    redisDeadlineMs: e.REDIS_DEADLINE_MS,
    journalMaxBytes: e.JOURNAL_MAX_MB * 1024 * 1024,
    journalFlushMs: e.JOURNAL_FLUSH_MS,
    adminUpstream: e.ADMIN_UPSTREAM,
    trustedProxies: list(e.TRUSTED_PROXIES),
    zoneRequests: {
      perAddressPerMinute: e.ZONE_REQUESTS_PER_ADDRESS_PER_MIN,
      perFingerprintPerMinute: e.ZONE_REQUESTS_PER_FINGERPRINT_PER_MIN,
    },
    pacingTickMs: e.PACING_TICK_MS,
    rotationRefreshMs: e.ROTATION_REFRESH_MS,
  }));
export type EngineSlice = z.output<typeof engineSlice>;
