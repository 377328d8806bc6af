import { z } from 'zod';

// `adnet backup` and `adnet restore` (docs/backup.md): the request the CLI puts in Redis for the running
// admin, the admin's answers, and the manifest a backup folder carries.

/** The list the CLI pushes a backup request onto; the admin of the embedded default pops it. */
export const BACKUP_REQUESTS = 'ops:backup:requests';
/** Where the admin answers request `id`: `started`, then `done` or `failed`. */
export const backupReplyKey = (id: string): string => `ops:backup:reply:${id}`;

/** 128 random bits in hex: also the name of the admin's staging folder, so nothing else may pass. */
export const backupIdSchema = z.string().regex(/^[0-9a-f]{32}$/, 'is not a backup id');

export const backupRequestSchema = z.object({
  id: backupIdSchema,
  /** When the CLI asked (epoch ms): a request nobody took within its wait is stale and refused. */
  at: z.number().int().positive(),
});
export type BackupRequest = z.infer<typeof backupRequestSchema>;

export const backupReplySchema = z.discriminatedUnion('state', [
  z.object({ state: z.literal('started') }),
  z.object({
    state: z.literal('done'),
    /** The ClickHouse database, as BACKUP wrote it into `<DATA_DIR>/backup-staging/<id>`. */
    database: z.string(),
    /** Redis's INFO `rdb_saves` once its snapshot was written: a later save would replace dump.rdb. */
    rdbSaves: z.number().int().nonnegative(),
    /** The event stream at the snapshot: its length and the ingest group's last delivered entry. */
    events: z.object({ length: z.number().int().nonnegative(), lastDeliveredId: z.string() }),
  }),
  z.object({ state: z.literal('failed'), error: z.string() }),
]);
export type BackupReply = z.infer<typeof backupReplySchema>;

export const BACKUP_FORMAT = 'adnet-backup';
export const BACKUP_FORMAT_VERSION = 1;
export const MANIFEST_FILE = 'manifest.json';

const relativePath = z
  .string()
  .min(1)
  .refine(
    (p) => !p.startsWith('/') && !p.split('/').includes('..') && !p.includes('\\'),
    'must be a path inside the backup',
  );

export const backupManifestSchema = z.object({
  format: z.literal(BACKUP_FORMAT),
  version: z.literal(BACKUP_FORMAT_VERSION),
  created_at: z.iso.datetime(),
  holds: z.object({
    /** Redis's snapshot (RDB): balances, ledger, campaigns, creatives, sites, zones, the event stream and its group. */
    redis: z.literal('redis/dump.rdb'),
    /** ClickHouse BACKUP of `database` (statistics). */
    clickhouse: z.object({ dir: z.literal('clickhouse'), database: z.string().regex(/^\w+$/) }),
    /** Uploaded images (DATA_DIR/media). */
    media: z.object({ dir: z.literal('media'), files: z.number().int().nonnegative() }),
  }),
  events: z.object({ length: z.number().int().nonnegative(), last_delivered_id: z.string() }),
  /** Every file of the backup but this one: path, size and SHA-256. */
  files: z.array(
    z.object({ path: relativePath, bytes: z.number().int().nonnegative(), sha256: z.string().regex(/^[0-9a-f]{64}$/) }),
  ),
});
export type BackupManifest = z.infer<typeof backupManifestSchema>;
