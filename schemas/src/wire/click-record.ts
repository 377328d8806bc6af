import { z } from 'zod';
import { integrationSchema } from '../events.ts';
import { CAMPAIGN_FORMATS } from '../formats.ts';

/** Where a conversion postback finds the click it names: written by the engine's click route, read by the admin. */
export const clickKey = (clickId: string): string => `click:{${clickId.toLowerCase()}}`;
/** How long a click can still receive its conversion. */
export const CLICK_TTL_S = 30 * 86_400;
/**
 * Set (with an expiry) while some engine holds journaled requests not yet replayed (docs/operations.md, "Redis
 * outages"). A postback for a click id not found meanwhile is answered 503 with Retry-After instead of 404, so
 * the tracker tries again once the click is replayed rather than dropping the conversion; a live click whose
 * ad's render is not counted yet is left to the replay rather than judged `not_rendered`, since the render
 * beacon may be among those requests.
 */
export const JOURNAL_PENDING_KEY = 'journal:pending';

/** The click as kept for its conversion (JSON at `clickKey`). */
export const clickRecordSchema = z.object({
  campaign_id: z.number().int(),
  creative_id: z.number().int(),
  advertiser_id: z.number().int(),
  publisher_id: z.number().int(),
  site_id: z.number().int(),
  zone_id: z.number().int(),
  /** The placement by name (absent in records of clicks before it existed): the conversion's `source`. */
  source: z.string().max(64).optional(),
  country: z.string().optional(),
  device: z.string().optional(),
  os: z.string().optional(),
  browser: z.string().optional(),
  vertical: z.string().optional(),
  /** How the ad was served (schemas/src/events.ts `INTEGRATIONS`; absent in records before it existed): the conversion's. */
  integration: integrationSchema.optional(),
  /** The format of the ad as served (schemas/src/events.ts `format`; absent in records before it existed): the conversion's and the postback's `{format}`. */
  format: z.enum(CAMPAIGN_FORMATS).optional(),
  /** Milliseconds since the epoch. */
  ts: z.number().int(),
  invalid: z.boolean(),
  /** The viewer's key (engine/src/frequency/), kept when an audience watches the campaign: its converters join the audiences of the campaign's conversions. */
  user: z.string().max(32).optional(),
});
export type ClickRecord = z.infer<typeof clickRecordSchema>;

export const encodeClickRecord = (r: ClickRecord): string => JSON.stringify(r);

/** The stored record, or undefined when it is not one (absent, or written by something else). */
export function decodeClickRecord(raw: string | null): ClickRecord | undefined {
  if (!raw) return undefined;
  try {
    const parsed = clickRecordSchema.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
