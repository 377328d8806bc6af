import { z } from 'zod';

/** The Redis Stream `events`: how engines batch into it and how long it may grow (the admin writes conversions to it too). */
export const eventsSlice = z
  .object({
    /** How often an engine writes its batched events to the Redis Stream `events`. */
    EVENT_FLUSH_MS: z.coerce.number().int().min(5).max(10_000).default(100),
    /** Most events in one stream entry. */
    EVENT_BATCH_MAX: z.coerce.number().int().min(1).max(100_000).default(500),
    /** Most events an engine holds while Redis is unreachable; past that it drops and counts them. */
    EVENT_BUFFER_MAX: z.coerce.number().int().min(1_000).max(10_000_000).default(200_000),
    /** Approximate cap on the entries of the `events` stream (`MAXLEN ~`), which bounds what waits for ClickHouse. */
    EVENT_STREAM_MAXLEN: z.coerce.number().int().min(1_000).max(100_000_000).default(1_000_000),
  })
  .transform((e) => ({
    flushMs: e.EVENT_FLUSH_MS,
    batchMax: e.EVENT_BATCH_MAX,
    bufferMax: e.EVENT_BUFFER_MAX,
    streamMaxLen: e.EVENT_STREAM_MAXLEN,
  }));
export type EventsConfig = z.output<typeof eventsSlice>;
