import { describe, expect, it } from 'vitest';
import { parseRedisTarget } from './redis-target.ts';

describe('parseRedisTarget', () => {
  it('reads one server or the seed nodes of a cluster', () => {
    expect(parseRedisTarget('redis://127.0.0.1:6379/0')).toEqual({ kind: 'single', url: 'redis://127.0.0.1:6379/0' });
    expect(parseRedisTarget('redis+cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002')).toEqual({
      kind: 'cluster',
      nodes: [
        { host: '10.0.0.1', port: 7000 },
        { host: '10.0.0.2', port: 7001 },
        { host: '::1', port: 7002 },
      ],
      username: undefined,
      password: undefined,
      tls: false,
    });
    expect(parseRedisTarget('rediss+cluster://app:p%40ss@redis-1.internal:6380/')).toMatchObject({
      kind: 'cluster',
      username: 'app',
      password: 'p@ss',
      tls: true,
      nodes: [{ host: 'redis-1.internal', port: 6380 }],
    });
  });

  it.each([
    'http://x:1',
    'redis+cluster://',
    'redis+cluster://a:1,b',
    'redis+cluster://a:99999',
    'redis+cluster://a:1/db',
    'not a url',
    'redis://',
  ])('refuses %s', (v) => {
    expect(parseRedisTarget(v)).toBeUndefined();
  });
});
