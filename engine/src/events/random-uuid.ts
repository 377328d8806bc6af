import { randomFillSync } from 'node:crypto';

// A version-4 UUID in the text form `crypto.randomUUID` gives, from the same source of randomness (the
// operating system's, drawn 256 ids at a time). Written as one string through a reused byte buffer:
// `randomUUID` joins its text from 20 pieces, and with two ids per bid its intermediate strings were a
// visible share of the bid path's garbage (bench/results/ab-history.md, step 12).

const BATCH = 256;
const random = Buffer.allocUnsafeSlow(16 * BATCH);
let used = BATCH;
const text = Buffer.allocUnsafeSlow(36);
const HEX = Buffer.from('0123456789abcdef', 'latin1');

export function randomUuid(): string {
  if (used === BATCH) {
    randomFillSync(random);
    used = 0;
  }
  const o = 16 * used++;
  let p = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[p++] = 0x2d; // '-'
    let b = random[o + i] as number;
    if (i === 6)
      b = (b & 0x0f) | 0x40; // version 4
    else if (i === 8) b = (b & 0x3f) | 0x80; // RFC 4122 variant
    text[p++] = HEX[b >> 4] as number;
    text[p++] = HEX[b & 0x0f] as number;
  }
  return text.toString('latin1', 0, 36);
}
