import { z } from 'zod';
import { port, trimUrl } from './fields.ts';

/** The public address and what every process serves on it: base URLs, logging, request bodies, shutdown. */
export const serverSlice = z
  .object({
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
    /**
     * Where people report an ad, shown on every ad's "About this ad" page (`/about-ad/<ticket>`): an email address
     * or an http(s) URL, e.g. `abuse@example.com`. Unset: the page names the network's domain alone.
     */
    NETWORK_CONTACT: z
      .string()
      .trim()
      .max(200)
      .refine(
        (v) => /^[^\s@<>"]+@[^\s@<>"]+\.[^\s@<>"]+$/.test(v) || /^https?:\/\/[^\s<>"]+$/.test(v),
        'must be an email address or an http(s) URL',
      )
      .optional(),
    /** Lowest level of the JSON log lines written to stdout. */
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    /** Largest creative image accepted, in bytes. */
    IMAGE_MAX_BYTES: z.coerce
      .number()
      .int()
      .min(1024)
      .max(20 * 1024 * 1024)
      .default(1024 * 1024),
    /** How long SIGTERM waits for requests in flight. */
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).max(600_000).default(10_000),
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
  })
  .transform((e) => {
    const baseUrl = trimUrl(e.PUBLIC_BASE_URL ?? `http://${e.HOST.includes(':') ? `[${e.HOST}]` : e.HOST}:${e.PORT}`);
    return {
      host: e.HOST,
      port: e.PORT,
      baseUrl,
      /** Where ad and tracking links point: PUBLIC_AD_BASE_URL, else baseUrl. */
      adBaseUrl: e.PUBLIC_AD_BASE_URL === undefined ? baseUrl : trimUrl(e.PUBLIC_AD_BASE_URL),
      /** Where people report an ad (the "About this ad" page); undefined: not configured. */
      networkContact: e.NETWORK_CONTACT,
      logLevel: e.LOG_LEVEL,
      shutdownGraceMs: e.SHUTDOWN_GRACE_MS,
      bodyBytesInFlightMax: e.BODY_BYTES_IN_FLIGHT_MAX,
      imageMaxBytes: e.IMAGE_MAX_BYTES,
      /** The largest request body the admin takes (an image upload with its text parts); the engine's proxy holds it to the same. */
      adminBodyMaxBytes: e.IMAGE_MAX_BYTES + 256 * 1024,
    };
  });
export type ServerConfig = z.output<typeof serverSlice>;
