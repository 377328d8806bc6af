import type { ConfigKind } from '../changes.ts';

// Redis keys that both the admin and the engines touch: the contract between
// them. Hash tags ({...}) keep the keys one script touches in one Redis Cluster
// slot: all config shares {cfg}; an advertiser's money shares {adv:<id>}; a
// campaign's daily pool has {c:<id>}.

export const cfgHash = (kind: ConfigKind): string => `{cfg}:${kind}`;
export const cfgRevHash = (kind: ConfigKind): string => `{cfg}:rev:${kind}`;
export const CFG_LOG = '{cfg}:log';
export const CFG_NOTICE_CHANNEL = 'cfg:notice';

export const balanceKey = (advertiserId: number): string => `{adv:${advertiserId}}:balance`;
export const ledgerKey = (advertiserId: number): string => `{adv:${advertiserId}}:ledger`;
export const advertiserHoldKey = (advertiserId: number): string => `{adv:${advertiserId}}:hold`;
/** Spend in nano-dollars not yet moved to the ledger as whole cents. */
export const advertiserPendingKey = (advertiserId: number): string => `{adv:${advertiserId}}:spend_nano`;

/** A campaign's budget pool for one budget day: hash with `spent` and holds, in nano-dollars. */
export const campaignPoolKey = (campaignId: number, day: string): string => `bud:{c:${campaignId}}:${day}`;
/** A campaign's lifetime spend (field `spent`, nano-dollars), in the slot of its daily pools. */
export const campaignTotalKey = (campaignId: number): string => `bud:{c:${campaignId}}:total`;
/** The lifetime key of the campaign a daily pool key belongs to. */
export const totalKeyOfPool = (poolKey: string): string => `${poolKey.slice(0, poolKey.lastIndexOf(':'))}:total`;
/** The campaign a daily pool key belongs to. */
export const campaignOfPool = (poolKey: string): number =>
  Number(poolKey.slice(poolKey.indexOf('{c:') + 3, poolKey.indexOf('}')));
/**
 * A campaign's lifetime counts per creative for its rotation, summed over every engine: fields
 * `i:<creative>` impressions, `k:<creative>` valid clicks, `v:<creative>` approved conversions.
 */
export const rotationCountsKey = (campaignId: number): string => `rot:{c:${campaignId}}`;
/**
 * The campaigns whose rotation counts (`rotation`) or today's spend (`spent`) changed during one time bucket
 * (../moved-marks.ts): a set of campaign ids that every writer adds to, so that the engines' 10 s passes read
 * only what moved. One hash tag per kind: a pass reads its buckets with one SUNION, in one slot.
 */
export const movedKey = (kind: 'rotation' | 'spent', bucket: number): string => `{moved:${kind}}:${bucket}`;
/** A live-preview token (the cabinet's zone preview, docs/browser-endpoints.md): the subid of the one zone it may preview. */
export const previewKey = (token: string): string => `preview:${token}`;
/** How long a preview token lasts: a publisher looking at a zone, not a standing credential. */
export const PREVIEW_TTL_SECONDS = 15 * 60;
/** One user's frequency-cap counts (engine/src/frequency/): `n:<campaign>`, `w:<campaign>` (period end, ms), `e:<campaign>:<engine>`. */
export const frequencyKey = (userKey: string): string => `fcap:{${userKey}}`;
/** One visitor's audience memberships (docs/audiences.md): field `<audience id>`, value when the membership ends (ms). */
export const audienceMembersKey = (userKey: string): string => `aud:{${userKey}}`;

/** The engines' event stream (msgpack batches). */
export const EVENT_STREAM = 'events';
/**
 * Stream entries the ingester could not turn into rows (not msgpack, not events), and events the events
 * table refuses: kept here with their original entry id and the reason, so the rest of the stream flows on
 * (written and read in admin/src/ingest/dead-letters.ts).
 */
export const EVENT_DEAD_LETTERS = 'events:dead';
/**
 * Marks a dead letter whose events were added to `events` again (kept a week after). The hash tag puts it in
 * the stream's own slot (`events` hashes as `{events}` does), so one script adds the entry and marks the
 * letter, on one server or in a cluster.
 */
export const replayedLetterKey = (deadId: string): string => `{events}:dead:replayed:${deadId}`;
/** Shared secret for signed tracking links when TRACKING_SECRET is not configured. */
export const TRACKING_SECRET_KEY = 'secret:tracking';
/** Marks a win (or VAST impression) as counted, for idempotence. */
export const countedKey = (kind: 'win' | 'imp' | 'click', bidId: string): string => `counted:${kind}:{${bidId}}`;
