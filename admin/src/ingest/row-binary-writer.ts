/**
 * A RowBinary body written value by value into one growing buffer: strings with varint lengths, 32-bit
 * unsigned integers, 64-bit integers and single bytes, little-endian as ClickHouse reads them. A row that
 * turns out not to fit is taken back by setting `at` to where it began.
 */
export class RowBinaryWriter {
  buf: Buffer;
  at = 0;

  constructor(bytesExpected: number) {
    this.buf = Buffer.allocUnsafe(Math.max(1024, bytesExpected));
  }

  /** Room for `n` more bytes. */
  room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const bigger = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(bigger, 0, 0, this.at);
    this.buf = bigger;
  }

  string(v: string): void {
    // UTF-8 is at most 3 bytes per UTF-16 unit; a length under 128 is one varint byte.
    this.room(v.length * 3 + 5);
    const n = this.buf.write(v, this.at + 1, 'utf8');
    if (n < 128) {
      this.buf[this.at] = n;
      this.at += 1 + n;
      return;
    }
    const prefix = varintLength(n);
    this.buf.copyWithin(this.at + prefix, this.at + 1, this.at + 1 + n);
    writeVarint(this.buf, this.at, n);
    this.at += prefix + n;
  }

  /** A string given as `length` bytes of `src` from `start`, already UTF-8. */
  stringBytes(src: Uint8Array, start: number, length: number): void {
    this.room(length + 5);
    writeVarint(this.buf, this.at, length);
    this.at += varintLength(length);
    // Short strings (most of an event's) copy faster in a loop than through a native call.
    if (length < 32) for (let i = 0; i < length; i++) this.buf[this.at + i] = src[start + i] as number;
    else this.buf.set(src.subarray(start, start + length), this.at);
    this.at += length;
  }

  /** `v` a whole number in 0..2^32-1 (checked by the caller). */
  uint32(v: number): void {
    this.room(4);
    // Byte by byte: Buffer's writeUInt32LE checks its arguments again at every call.
    put32(this.buf, this.at, v);
    this.at += 4;
  }

  /** Exact for any safe integer (money in nano-units, milliseconds): the low and high 32-bit halves. */
  int64(v: number): void {
    this.room(8);
    const hi = Math.floor(v / 4_294_967_296);
    put32(this.buf, this.at, v - hi * 4_294_967_296);
    put32(this.buf, this.at + 4, hi >>> 0);
    this.at += 8;
  }

  byte(v: number): void {
    this.room(1);
    this.buf[this.at++] = v;
  }

  body(): Buffer {
    return this.buf.subarray(0, this.at);
  }
}

function put32(buf: Buffer, at: number, v: number): void {
  buf[at] = v & 0xff;
  buf[at + 1] = (v >>> 8) & 0xff;
  buf[at + 2] = (v >>> 16) & 0xff;
  buf[at + 3] = v >>> 24;
}

function varintLength(n: number): number {
  let len = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    len++;
  }
  return len;
}

function writeVarint(buf: Buffer, at: number, n: number): void {
  while (n >= 128) {
    buf[at++] = (n & 127) | 128;
    n = Math.floor(n / 128);
  }
  buf[at] = n;
}
