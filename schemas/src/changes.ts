import { z } from 'zod';

/**
 * Configuration the engines mirror. Each kind is one Redis hash (the snapshot)
 * plus entries in one change-log stream; see admin/src/storage/config-store.ts.
 */
export const CONFIG_KINDS = [
  'campaign',
  'creative',
  'partner',
  'site',
  'zone',
  'deal',
  'campaign_sources',
  'demand_partner',
  'campaign_zone_bids',
  'audience',
] as const;
export const configKindSchema = z.enum(CONFIG_KINDS);
export type ConfigKind = z.infer<typeof configKindSchema>;

/** One change-log entry as a reader receives it (the value is msgpack-decoded). */
export const changeEntrySchema = z.object({
  /** Redis stream id; readers resume after the last one they applied. */
  seq: z.string(),
  kind: configKindSchema,
  id: z.number().int(),
  op: z.enum(['put', 'del']),
  value: z.unknown(),
});
export type ChangeEntry = z.infer<typeof changeEntrySchema>;
