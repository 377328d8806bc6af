import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Tokens are `<id>|<opaque>`: the id finds the record, only sha256(opaque) is stored. */
export function newOpaque(): string {
  return randomBytes(32).toString('base64url');
}

export function hashOpaque(opaque: string): string {
  return createHash('sha256').update(opaque).digest('hex');
}

const TOKEN_RE = /^(\d{1,15})\|([A-Za-z0-9_-]{43})$/;

export function parseToken(token: string): { id: string; opaque: string } | undefined {
  const m = TOKEN_RE.exec(token);
  return m ? { id: m[1] as string, opaque: m[2] as string } : undefined;
}

export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Postback secrets: 32 random bytes, hex (easy to paste into trackers). */
export function newSecret(): string {
  return randomBytes(32).toString('hex');
}
