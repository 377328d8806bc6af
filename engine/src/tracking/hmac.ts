import { hash } from 'node:crypto';

/**
 * HMAC-SHA256 (RFC 2104) written out over one-shot hashes: `createHmac` builds a keyed object and
 * redoes the key schedule for every message, which cost more than the two hashes themselves (every
 * bid's ticket, every click's id; bench/results/ab-history.md, step 5). The padded keys are made once
 * per secret; the same bytes go in as `createHmac('sha256', secret).update(message)` would hash (both
 * UTF-8), so every digest is the same.
 */
interface Pads {
  /** (key XOR ipad) followed by room for the message. */
  inner: Buffer;
  /** (key XOR opad) followed by the inner digest. */
  outer: Buffer;
}
const BLOCK = 64;
const pads = new Map<string, Pads>();

function padsOf(secret: string): Pads {
  let p = pads.get(secret);
  if (p) return p;
  let key = Buffer.from(secret, 'utf8');
  if (key.length > BLOCK) key = hash('sha256', key, 'buffer');
  const inner = Buffer.alloc(BLOCK + 1024, 0x36);
  const outer = Buffer.alloc(BLOCK + 32, 0x5c);
  for (let i = 0; i < key.length; i++) {
    inner[i] = (inner[i] as number) ^ (key[i] as number);
    outer[i] = (outer[i] as number) ^ (key[i] as number);
  }
  // An engine knows a few secrets; the bound only keeps a misuse from growing the map.
  if (pads.size >= 16) pads.clear();
  p = { inner, outer };
  pads.set(secret, p);
  return p;
}

/** The outer pad followed by the inner digest: what the outer hash takes. */
function outerBlock(secret: string, message: string): Buffer {
  const p = padsOf(secret);
  // UTF-8 takes at most 3 bytes per UTF-16 unit: grow the message room (keeping the padded key) when it could not fit.
  if (BLOCK + 3 * message.length > p.inner.length) {
    const grown = Buffer.allocUnsafe(BLOCK + 3 * message.length);
    p.inner.copy(grown, 0, 0, BLOCK);
    p.inner = grown;
  }
  const n = p.inner.write(message, BLOCK, 'utf8');
  hash('sha256', p.inner.subarray(0, BLOCK + n), 'buffer').copy(p.outer, BLOCK);
  return p.outer;
}

/** `createHmac('sha256', secret).update(message).digest()`, a new Buffer of 32 bytes. */
export const hmacSha256 = (secret: string, message: string): Buffer =>
  hash('sha256', outerBlock(secret, message), 'buffer');

/** `createHmac('sha256', secret).update(message).digest('base64url')`. */
export const hmacSha256Base64url = (secret: string, message: string): string =>
  hash('sha256', outerBlock(secret, message), 'base64url');
