import { describe, expect, it } from 'vitest';
import { afterInstall, plan, programsFor } from './system-packages.ts';
import type { Machine } from './system-packages.ts';

const root: Machine = { root: true, aptGet: true };
const user: Machine = { root: false, aptGet: true };
const commands = (purpose: Parameters<typeof programsFor>[0], env = {}) =>
  programsFor(purpose, env).map((p) => p.command);

describe('programsFor', () => {
  it('start needs redis-server only without REDIS_URL (empty counts as unset)', () => {
    expect(commands('start')).toEqual(['redis-server']);
    expect(commands('start', { REDIS_URL: '' })).toEqual(['redis-server']);
    expect(commands('start', { REDIS_URL: 'redis://10.0.0.1:6379' })).toEqual([]);
  });
  it('test needs the Redis pair, xmllint, the Chromium the browser tests launch, nginx and readelf', () => {
    expect(programsFor('test', { REDIS_URL: 'redis://x:6379' }).map((p) => [p.command, p.pkg])).toEqual([
      ['redis-server', 'redis-server'],
      ['redis-cli', 'redis-tools'],
      ['xmllint', 'libxml2-utils'],
      ['/usr/bin/chromium', 'chromium'],
      ['nginx', 'nginx-light'],
      ['readelf', 'binutils'],
    ]);
  });
  it('bench needs redis-server and wrk', () => {
    expect(commands('bench')).toEqual(['redis-server', 'wrk']);
  });
});

describe('plan', () => {
  const test = programsFor('test', {});
  const [redisServer, redisCli, xmllint] = test;

  it('says and does nothing when everything is there', () => {
    expect(plan('test', [], user)).toEqual({ action: 'none' });
    expect(plan('test', [], root)).toEqual({ action: 'none' });
  });
  it('as root with apt-get: installs each package once, in one line naming what and why', () => {
    const p = plan('test', [redisServer!, redisCli!, xmllint!], root);
    expect(p.action).toBe('install');
    if (p.action !== 'install') return;
    expect(p.packages).toEqual(['redis-server', 'redis-tools', 'libxml2-utils']);
    expect(p.notice).not.toContain('\n');
    expect(p.notice).toContain('installing redis-server redis-tools libxml2-utils');
    expect(p.notice).toContain('xmllint (VAST output is validated against the IAB schema)');
  });
  it('otherwise stops with the exact command to run, each package once', () => {
    for (const machine of [user, { root: true, aptGet: false }]) {
      const p = plan('test', [redisServer!, redisServer!, xmllint!], machine);
      expect(p.action).toBe('fail');
      if (p.action !== 'fail') return;
      expect(p.message.split('\n').at(-1)).toBe('  sudo apt-get install -y redis-server libxml2-utils');
    }
  });
  it('after apt-get, a program still missing stops the command', () => {
    expect(afterInstall('start', [])).toEqual({ action: 'none' });
    const p = afterInstall('start', programsFor('start', {}));
    expect(p.action === 'fail' && p.message).toContain('still missing: redis-server');
  });
});
