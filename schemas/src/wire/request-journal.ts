import { crc32 } from 'node:zlib';
import { z } from 'zod';

/**
 * The engine's request journal (engine/src/journal/): the tracking requests it answered without Redis, kept on
 * local disk until Redis is back and they are replayed through their route. One record a line:
 * `<crc32 of the JSON, 8 hex digits> <JSON>\n`, so a record torn by a crash mid-write, or a line of garbage, is
 * found and skipped alone while every other record is replayed.
 */

/** The routes whose requests are journaled: each is counted once by its own marks when replayed. */
export const JOURNALED_ROUTES = ['click', 'beacon', 'imptracker', 'vast', 'win', 'bill'] as const;
export type JournaledRoute = (typeof JOURNALED_ROUTES)[number];

/** A request as the route saw it: enough to run the route again later, with the time it came. */
export const journaledRequestSchema = z.object({
  /** Unique within the journal's folder: `<engine start>-<sequence>`. */
  id: z.string().min(1).max(64),
  route: z.enum(JOURNALED_ROUTES),
  /** When the request came (ms since the epoch): the replay judges it as of then. */
  at: z.number().int().positive(),
  params: z.array(z.string().max(4096)).max(4),
  query: z.string().max(8192),
  ip: z.string().max(64),
  viaProxy: z.boolean(),
  userAgent: z.string().max(2048),
});
export type JournaledRequest = z.infer<typeof journaledRequestSchema>;

/** A journaled request that has been applied (its route ran to the end against Redis): replay skips it. */
export const journalDoneSchema = z.object({ done: z.string().min(1).max(64) });

export type JournalRecord = JournaledRequest | z.infer<typeof journalDoneSchema>;

const recordSchema = z.union([journaledRequestSchema, journalDoneSchema]);

const hex8 = (n: number): string => n.toString(16).padStart(8, '0');

export function encodeJournalRecord(record: JournalRecord): string {
  const json = JSON.stringify(record);
  return `${hex8(crc32(json))} ${json}\n`;
}

export interface SkippedLine {
  /** 1-based line number in the file. */
  line: number;
  reason: 'torn' | 'checksum' | 'not_a_record';
}

/** The requests in a journal's text that were not marked done, in order, and the lines that could not be read. */
export function pendingRequests(text: string): { pending: JournaledRequest[]; skipped: SkippedLine[] } {
  const lines = text.split('\n');
  // The text after the last newline is a record whose write did not finish (or nothing).
  const tail = lines.pop() ?? '';
  const skipped: SkippedLine[] = [];
  const requests: JournaledRequest[] = [];
  const done = new Set<string>();
  lines.forEach((line, i) => {
    if (line === '') return;
    const record = decodeLine(line);
    if (typeof record === 'string') skipped.push({ line: i + 1, reason: record });
    else if ('done' in record) done.add(record.done);
    else requests.push(record);
  });
  if (tail !== '') skipped.push({ line: lines.length + 1, reason: 'torn' });
  return { pending: requests.filter((r) => !done.has(r.id)), skipped };
}

function decodeLine(line: string): JournalRecord | 'checksum' | 'not_a_record' {
  const space = line.indexOf(' ');
  if (space !== 8) return 'not_a_record';
  const json = line.slice(9);
  if (line.slice(0, 8) !== hex8(crc32(json))) return 'checksum';
  try {
    const parsed = recordSchema.safeParse(JSON.parse(json));
    return parsed.success ? parsed.data : 'not_a_record';
  } catch {
    return 'not_a_record';
  }
}
