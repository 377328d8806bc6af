import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import pLimit from 'p-limit';
import { AppError } from '../errors.ts';

export interface ScryptParams {
  N: number;
  r: number;
  p: number;
}

/** OWASP's password storage cheat sheet: N=2^17, r=8, p=1 (128 MiB and a few hundred ms per hash). */
export const OWASP_SCRYPT: Readonly<ScryptParams> = { N: 2 ** 17, r: 8, p: 1 };

const KEY_LEN = 32;
const SALT_LEN = 16;
/** What a stored hash may ask for: a tampered record must not make a sign-in allocate gigabytes. */
const MAX_N = 2 ** 20;
const MAX_R = 32;
const MAX_P = 16;

export interface HasherOptions {
  /**
   * Hashes derived at once. Each holds 128*N*r bytes on a libuv thread (the pool has 4, shared with file
   * and DNS work), so a burst of sign-ins must not take them all.
   */
  concurrency?: number;
  /** Hashes waiting beyond those; past this a sign-in is answered 503 rather than queued without bound. */
  maxQueued?: number;
}

interface ParsedHash {
  params: ScryptParams;
  salt: Buffer;
  key: Buffer;
}

/** `scrypt$N$r$p$<salt b64>$<hash b64>`: the parameters travel with the hash, so they can be raised later. */
function parse(stored: string): ParsedHash | undefined {
  const [scheme, n, r, p, salt, key, extra] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined || extra !== undefined) return undefined;
  const params = { N: Number(n), r: Number(r), p: Number(p) };
  const powerOfTwo = Number.isInteger(params.N) && params.N >= 2 && (params.N & (params.N - 1)) === 0;
  if (!powerOfTwo || params.N > MAX_N || !(params.r >= 1 && params.r <= MAX_R) || !(params.p >= 1 && params.p <= MAX_P))
    return undefined;
  if (!Number.isInteger(params.r) || !Number.isInteger(params.p)) return undefined;
  return { params, salt: Buffer.from(salt, 'base64'), key: Buffer.from(key, 'base64') };
}

function format(params: ScryptParams, salt: Buffer, key: Buffer): string {
  return ['scrypt', params.N, params.r, params.p, salt.toString('base64'), key.toString('base64')].join('$');
}

/** Hashes and checks passwords with scrypt, a bounded number at a time. */
export class PasswordHasher {
  /** Verified against when an email is unknown, so that answer takes as long as a wrong password. */
  readonly dummyHash: string;
  private readonly gate: ReturnType<typeof pLimit>;
  private readonly maxQueued: number;

  constructor(
    readonly params: Readonly<ScryptParams> = OWASP_SCRYPT,
    opts: HasherOptions = {},
  ) {
    this.gate = pLimit(opts.concurrency ?? 2);
    this.maxQueued = opts.maxQueued ?? 64;
    this.dummyHash = format(params, Buffer.alloc(SALT_LEN), Buffer.alloc(KEY_LEN));
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(SALT_LEN);
    return format(this.params, salt, await this.derive(password, salt, this.params));
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const parsed = parse(stored);
    if (!parsed) return false;
    const key = await this.derive(password, parsed.salt, parsed.params);
    return key.length === parsed.key.length && timingSafeEqual(key, parsed.key);
  }

  /** True when a hash was made with other parameters than the current ones (rehashed at the next sign-in). */
  needsRehash(stored: string): boolean {
    const parsed = parse(stored);
    if (!parsed) return true;
    const { N, r, p } = parsed.params;
    return (
      N !== this.params.N ||
      r !== this.params.r ||
      p !== this.params.p ||
      parsed.key.length !== KEY_LEN ||
      parsed.salt.length !== SALT_LEN
    );
  }

  private derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
    if (this.gate.pendingCount >= this.maxQueued) {
      return Promise.reject(
        new AppError('unavailable', 'Too many sign-ins at once; try again shortly', { retryAfterSeconds: 1 }),
      );
    }
    // Node refuses scrypt when its memory (about 128*N*r bytes) exceeds maxmem, 32 MiB by default.
    const maxmem = 256 * params.N * params.r + 1024 * 1024;
    return this.gate(
      () =>
        new Promise<Buffer>((resolve, reject) =>
          scrypt(password.normalize('NFKC'), salt, KEY_LEN, { ...params, maxmem }, (err, key) =>
            err ? reject(err) : resolve(key),
          ),
        ),
    );
  }
}
