import type { ConfigKind } from '@adnet/schemas/changes';

// Hash tags ({...}) put keys that one script or transaction touches into one
// Redis Cluster slot. Config is small, so all of it shares the {cfg} slot and a
// change is one atomic script; per-advertiser money shares {adv:<id>}.

export const cfgHash = (kind: ConfigKind): string => `{cfg}:${kind}`;
export const cfgRevHash = (kind: ConfigKind): string => `{cfg}:rev:${kind}`;
export const CFG_LOG = '{cfg}:log';
export const CFG_NOTICE_CHANNEL = 'cfg:notice';
export const cfgIndex = (name: string, id: number | string): string => `{cfg}:ix:${name}:${id}`;
export const CFG_MODERATION_QUEUE = '{cfg}:ix:moderation';
export const idCounter = (kind: string): string => `ids:${kind}`;

export const USERS = '{users}:user';
export const USERS_BY_EMAIL = '{users}:email';
export const USERS_BY_ROLE = (role: string): string => `{users}:role:${role}`;
export const userKey = (id: number): string => `{users}:u:${id}`;

export const tokenKey = (id: string): string => `tok:${id}`;

export const balanceKey = (advertiserId: number): string => `{adv:${advertiserId}}:balance`;
export const ledgerKey = (advertiserId: number): string => `{adv:${advertiserId}}:ledger`;
/** Spend counter the engines increment; read here for `daily_spent_cents`. */
export const dailySpendKey = (campaignId: number, day: string): string => `spend:{c:${campaignId}}:${day}`;

export const rateKey = (scope: string): string => `rl:{${scope}}`;
