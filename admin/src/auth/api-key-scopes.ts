import { API_KEY_SCOPES } from '@adnet/schemas/accounts';
import type { ApiKeyScope } from '@adnet/schemas/accounts';

export type ProcedureKind = 'query' | 'mutation' | 'subscription';

/** Procedures no API key may call, whatever its scopes: keys are managed, and passwords changed, by a signed-in person. */
const KEY_FORBIDDEN = /^(keys\.|auth\.(?!me$))/;
const STATS = /(^|\.)stats(\.|$)/;
/** The advertiser's postback settings (the secret included) and the conversions the postbacks report. */
const POSTBACK = /^adv\.(profile|conversions)\./;
const CONVERSIONS = /^adv\.conversions\./;

/**
 * The scopes that allow a procedure, by its tRPC path (REST paths map onto the same procedures, so one
 * rule covers both doors): `stats` the statistics; `postback` the conversions and the postback
 * settings; `read` every other query (conversions too); `write` every other change; `auth.me` any key.
 * Empty: no key may.
 */
export function scopesFor(path: string, kind: ProcedureKind): readonly ApiKeyScope[] {
  // Any key may ask whose it is.
  if (path === 'auth.me') return API_KEY_SCOPES;
  if (KEY_FORBIDDEN.test(path)) return [];
  if (STATS.test(path)) return ['stats'];
  if (CONVERSIONS.test(path) && kind === 'query') return ['read', 'postback'];
  if (POSTBACK.test(path)) return ['postback'];
  return kind === 'query' ? ['read'] : ['write'];
}

export function keyAllows(scopes: readonly ApiKeyScope[], path: string, kind: ProcedureKind): boolean {
  return scopesFor(path, kind).some((s) => scopes.includes(s));
}
