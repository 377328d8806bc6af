import { describe, expect, it } from 'vitest';
import { AppError } from '../errors.ts';
import { OWASP_SCRYPT, PasswordHasher } from './password.ts';

const cheap = new PasswordHasher({ N: 1024, r: 8, p: 1 });

describe('password hashing', () => {
  it("stores OWASP's parameters by default: N=2^17, r=8, p=1", async () => {
    expect(OWASP_SCRYPT).toEqual({ N: 131_072, r: 8, p: 1 });
    const full = new PasswordHasher();
    const h = await full.hash('correct horse');
    expect(h).toMatch(/^scrypt\$131072\$8\$1\$[A-Za-z0-9+/]{22}==\$[A-Za-z0-9+/]{43}=$/);
    expect(await full.verify('correct horse', h)).toBe(true);
    expect(full.needsRehash(h)).toBe(false);
  });

  it('verifies the right password only, whatever parameters the hash carries', async () => {
    const h = await cheap.hash('correct horse');
    expect(await cheap.verify('correct horse', h)).toBe(true);
    expect(await cheap.verify('correct hors', h)).toBe(false);
    expect(await cheap.verify('anything', cheap.dummyHash)).toBe(false);
    expect(await cheap.verify('x', 'garbage')).toBe(false);
    // A hash made at another cost still verifies (it is rehashed at sign-in).
    expect(await new PasswordHasher({ N: 2048, r: 8, p: 1 }).verify('correct horse', h)).toBe(true);
  });

  it('refuses stored parameters that would take unbounded memory', async () => {
    const [, , , , salt, key] = (await cheap.hash('pw')).split('$');
    expect(await cheap.verify('pw', `scrypt$${2 ** 24}$8$1$${salt}$${key}`)).toBe(false);
    expect(await cheap.verify('pw', `scrypt$1000$8$1$${salt}$${key}`)).toBe(false);
    expect(await cheap.verify('pw', `scrypt$1024$64$1$${salt}$${key}`)).toBe(false);
  });

  it('tells which hashes to redo: other parameters, or a format it cannot read', async () => {
    const h = await cheap.hash('pw');
    expect(cheap.needsRehash(h)).toBe(false);
    expect(new PasswordHasher().needsRehash(h)).toBe(true);
    expect(
      cheap.needsRehash('scrypt$16384$8$1$AAAAAAAAAAAAAAAAAAAAAA==$AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA='),
    ).toBe(true);
    expect(cheap.needsRehash('md5$abc')).toBe(true);
  });

  it('salts every hash', async () => {
    expect(await cheap.hash('same')).not.toBe(await cheap.hash('same'));
  });

  it('answers 503 instead of queueing hashes without bound', async () => {
    const narrow = new PasswordHasher({ N: 16_384, r: 8, p: 1 }, { concurrency: 1, maxQueued: 1 });
    const results = await Promise.allSettled([narrow.hash('a'), narrow.hash('b'), narrow.hash('c')]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected']);
    const refused = (results[2] as PromiseRejectedResult).reason as AppError;
    expect(refused).toBeInstanceOf(AppError);
    expect(refused.status).toBe(503);
    expect(refused.retryAfterSeconds).toBe(1);
  });
});
