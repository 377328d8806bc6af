export {
  CFG_LOG,
  CFG_NOTICE_CHANNEL,
  balanceKey,
  campaignPoolKey,
  campaignTotalKey,
  cfgHash,
  cfgRevHash,
  ledgerKey,
} from '@adnet/schemas/redis-keys';

// Hash tags ({...}) put keys that one script or transaction touches into one
// Redis Cluster slot. Config is small, so all of it shares the {cfg} slot and a
// change is one atomic script; per-advertiser money shares {adv:<id>}.

export const cfgIndex = (name: string, id: number | string): string => `{cfg}:ix:${name}:${id}`;
export const CFG_MODERATION_QUEUE = '{cfg}:ix:moderation';
export const idCounter = (kind: string): string => `ids:${kind}`;

export const USERS = '{users}:user';
export const USERS_BY_EMAIL = '{users}:email';
export const USERS_BY_ROLE = (role: string): string => `{users}:role:${role}`;
export const userKey = (id: number): string => `{users}:u:${id}`;
/** Postback secret -> advertiser id: the secret only identifies the advertiser. */
export const USERS_BY_POSTBACK_SECRET = '{users}:pbsecret';

export const tokenKey = (id: string): string => `tok:${id}`;

export const rateKey = (scope: string): string => `rl:{${scope}}`;

/** Sign-in back-off of one account, by a digest of the email as typed (unknown emails get one too). */
export const signInBackoffKey = (emailDigest: string): string => `bo:{signin:${emailDigest}}`;
