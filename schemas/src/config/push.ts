import { z } from 'zod';

/** Web push: each engine's sender. */
export const pushSlice = z
  .object({
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
      .default(
        'fcm.googleapis.com,*.push.services.mozilla.com,*.notify.windows.com,web.push.apple.com,*.push.apple.com',
      ),
    /** Tests only: a CA certificate file to trust for push services. */
    PUSH_CA_FILE: z.string().optional(),
  })
  .transform((e) => ({
    minIntervalHours: e.PUSH_MIN_INTERVAL_HOURS,
    sendIntervalMs: e.PUSH_SEND_INTERVAL_MS,
    sendConcurrency: e.PUSH_SEND_CONCURRENCY,
    serviceHosts: e.PUSH_SERVICE_HOSTS.split(',')
      .map((h) => h.trim().toLowerCase())
      .filter(Boolean),
    caFile: e.PUSH_CA_FILE,
  }));
export type PushConfig = z.output<typeof pushSlice>;
