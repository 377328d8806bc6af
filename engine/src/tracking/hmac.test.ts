import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacSha256, hmacSha256Base64url } from './hmac.ts';

describe('hmacSha256', () => {
  it('is createHmac for empty, short, block-sized, non-ASCII and long keys, and messages of any size', () => {
    const keys = ['', 's', 'x'.repeat(63), 'x'.repeat(64), 'x'.repeat(65), 'é'.repeat(40), 'z'.repeat(200)];
    // A message long enough to outgrow the first buffer, then short ones again after it.
    const messages = ['', 'click:b-1', 'ü€😀', 'm'.repeat(5_000), 'click:b-2', `a${'\u{10FFFF}'.repeat(700)}`];
    for (const key of keys)
      for (const m of messages) {
        const want = createHmac('sha256', key).update(m).digest();
        expect(hmacSha256(key, m).equals(want)).toBe(true);
        expect(hmacSha256Base64url(key, m)).toBe(want.toString('base64url'));
      }
  });
});
