import { Redis } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';

/** A Redis server of the test file's own, started before its tests and stopped after, with one client to it. */
export function useTestRedis(): { readonly server: TestRedis; readonly client: Redis } {
  const fx = {} as { server: TestRedis; client: Redis };
  beforeAll(async () => {
    fx.server = await startRedis();
    fx.client = new Redis(fx.server.url);
  });
  afterAll(async () => {
    await fx.client.quit();
    await fx.server.stop();
  });
  return fx;
}
