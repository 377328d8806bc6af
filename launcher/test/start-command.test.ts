import { readFileSync } from 'node:fs';
import { get, request } from 'node:http';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort, freePortRun, startRedis } from '@adnet/test-support/redis';
import { redisAnswers } from '../src/private-redis.ts';
import { launch, stopLaunched, tempDir } from './support/launch.ts';

afterAll(stopLaunched);

describe('pnpm start', () => {
  it('runs on embedded defaults, keeps data across restarts, and stops cleanly on SIGTERM', async () => {
    const dataDir = tempDir();
    const port = await freePort();
    // Everything logged, so the private Redis' password can be looked for in all of it.
    const first = await launch({ DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'trace' });
    expect(first.base).toBe(`http://127.0.0.1:${port}`);
    expect(first.out()).toContain(`DATA_DIR=${dataDir} npx -y pnpm@10.34.8 adnet demo`);
    // The start command builds the cabinet and the public URL serves it, deep links included.
    const cabinet = await fetch(`${first.base}/cabinet/profile`);
    expect(cabinet.status).toBe(200);
    expect(await cabinet.text()).toMatch(
      /<script type="module" crossorigin src="\/cabinet\/assets\/index-[\w-]+\.js">/,
    );

    const reg = await fetch(`${first.base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'first@example.com', password: 'first-pass', role: 'advertiser' }),
    });
    expect(reg.status).toBe(202);
    // The private Redis asks for the password kept beside its data.
    const redisUrl = new URL(readFileSync(join(dataDir, 'redis', 'redis.url'), 'utf8').trim());
    redisUrl.password = readFileSync(join(dataDir, 'redis', 'redis.password'), 'utf8').trim();
    expect(await redisAnswers(redisUrl.href)).toBe(true);

    // A request whose body is still arriving when SIGTERM comes is answered, not cut.
    const inFlight = new Promise<number>((resolve, reject) => {
      const body = JSON.stringify({ email: 'late@example.com', password: 'late-pass', role: 'publisher' });
      const req = request(
        `${first.base}/api/auth/register`,
        { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, 10));
      setTimeout(() => {
        first.child.kill('SIGTERM');
        setTimeout(() => req.end(body.slice(10)), 300);
      }, 100);
    });
    expect(await inFlight).toBe(202);
    expect(await first.exit).toBe(0);
    expect(await redisAnswers(redisUrl.href)).toBe(false);

    const second = await launch({ DATA_DIR: dataDir, PORT: String(port) });
    const tok = await fetch(`${second.base}/api/auth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'late@example.com', password: 'late-pass' }),
    });
    expect(tok.status).toBe(200);
    second.child.kill('SIGTERM');
    expect(await second.exit).toBe(0);
    // Neither start, stop nor the requests between logged the private Redis' password (or its URL with it).
    expect(first.out()).toContain('"msg":"request"');
    for (const out of [first.out(), second.out()]) expect(out).not.toContain(redisUrl.password);
  }, 60_000);

  it('uses REDIS_URL when set, starts no Redis of its own, and runs ENGINE_PROCESSES engines on one port', async () => {
    const redis = await startRedis();
    try {
      const dataDir = tempDir();
      // The admin's and both engines' operator ports, in a run outside the kernel's range for listen(0).
      const metricsPort = await freePortRun(3);
      const port = await freePort();
      const run = await launch({
        DATA_DIR: dataDir,
        PORT: String(port),
        REDIS_URL: redis.url,
        ENGINE_PROCESSES: '2',
        METRICS_PORT: String(metricsPort),
      });
      expect((await fetch(`${run.base}/readyz`)).status).toBe(200);
      // A new connection each time: the kernel spreads them over both engines.
      const engineIds = new Set<string>();
      for (let i = 0; i < 40 && engineIds.size < 2; i++) {
        const id = await new Promise<string>((resolve, reject) =>
          get(`${run.base}/engine/healthz`, { agent: false }, (res) => {
            let body = '';
            res.on('data', (d: Buffer) => (body += d.toString()));
            res.on('end', () => resolve((JSON.parse(body) as { engine: string }).engine));
          }).on('error', reject),
        );
        engineIds.add(id);
      }
      expect(engineIds.size).toBe(2);
      await fetch(`${run.base}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: 'ext@example.com', password: 'ext-pass-1', role: 'advertiser' }),
      });
      const check = new Redis(redis.url);
      expect(await check.hget('{users}:email', 'ext@example.com')).not.toBeNull();
      await check.quit();

      // Operators' address: the admin on METRICS_PORT, engine i on METRICS_PORT + 1 + i; none of it on the public port.
      expect((await fetch(`${run.base}/metrics`)).status).toBe(404);
      const bid = await fetch(`${run.base}/openrtb/bid`, {
        method: 'POST',
        headers: { 'x-request-id': 'trace-me-1' },
        body: '{}',
      });
      expect(bid.headers.get('x-request-id')).toBe('trace-me-1');
      const admin = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
      expect(admin).toMatch(/adnet_admin_http_requests_total\{route="\/api\/auth\/register",status="202"\} 1/);
      expect(admin).toMatch(/adnet_admin_event_stream\{measure="lag"\} \d+/);
      expect(admin).toMatch(/adnet_admin_postback_queue 0/);
      expect(admin).toContain('adnet_admin_process_cpu_seconds_total');
      expect((await fetch(`http://127.0.0.1:${metricsPort}/readyz`)).status).toBe(200);
      const engines = await Promise.all(
        [1, 2].map(async (i) => (await fetch(`http://127.0.0.1:${metricsPort + i}/metrics`)).text()),
      );
      // The bid came from an address on no partner's allow-list: 403, counted by the engine that took it.
      expect(engines.join('\n')).toMatch(
        /adnet_engine_http_requests_total\{route="\/openrtb\/bid",status="403",engine="[0-9a-f]+"\} 1/,
      );
      // ENGINE_NODE=auto: the engines run on the bundled Node 24 (docs/deployment.md, "Runtime"), the admin on this Node.
      expect(admin).toContain(`adnet_admin_nodejs_version_info{version="${process.version}"`);
      for (const [i, text] of engines.entries()) {
        expect(text).toMatch(/adnet_engine_nodejs_version_info\{version="v24\./);
        expect(text).toMatch(/adnet_engine_index_candidates\{engine="[0-9a-f]+"\} 0/);
        expect(text).toContain('adnet_engine_event_backlog');
        expect((await fetch(`http://127.0.0.1:${metricsPort + 1 + i}/readyz`)).status).toBe(200);
      }
      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
      expect(await redisAnswers(redis.url)).toBe(true);
    } finally {
      await redis.stop();
    }
  }, 60_000);

  it('stops with a message naming a wrong variable, or the missing Redis package', async () => {
    const bad = await launch({ DATA_DIR: tempDir(), PORT: 'eighty' }, 'PORT');
    expect(await bad.exit).toBe(2);
    expect(bad.out()).toContain('PORT');
    const noRedis = await launch(
      { DATA_DIR: tempDir(), PORT: String(await freePort()), PATH: '/nonexistent' },
      'redis-server',
    );
    expect(await noRedis.exit).toBe(2);
    expect(noRedis.out()).toContain('apt-get install redis-server');
  }, 60_000);
});
