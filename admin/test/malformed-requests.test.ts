import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp } from '@adnet/test-support/admin';
import type { TestApp } from '@adnet/test-support/admin';
import { rawRequest } from '@adnet/test-support/raw-http';
import { startRedis } from '@adnet/test-support/redis';
import type { TestRedis } from '@adnet/test-support/redis';

// Regressions the hostile-input suite found in the admin's HTTP layer: every answer in the product's
// error shape, none a 500.

let redis: TestRedis;
let app: TestApp;
let unbuilt: TestApp;
const cabinet = mkdtempSync(join(tmpdir(), 'cabinet-'));

beforeAll(async () => {
  mkdirSync(join(cabinet, 'assets'));
  writeFileSync(join(cabinet, 'assets', 'a.js'), 'void 0;');
  redis = await startRedis();
  app = await startApp(redis.url, {}, { cabinetDir: cabinet });
  // A cabinet folder whose build never finished: no index.html.
  unbuilt = await startApp(redis.url, {}, { cabinetDir: join(cabinet, 'assets') });
});
afterAll(async () => {
  await app?.close();
  await unbuilt?.close();
  await redis?.stop();
  rmSync(cabinet, { recursive: true, force: true });
});

const get = (base: string, target: string) => rawRequest(base, { method: 'GET', target, headers: [] }, 3_000);
const json = (body: Buffer) => JSON.parse(body.toString()) as unknown;

describe('the admin', () => {
  it('reads a target that starts with // as a path (it was parsed as a host and a bad port made a 500)', async () => {
    for (const target of ['//a:99999/', '//[/']) {
      const res = await get(app.base, target);
      expect([res.status, json(res.body)], target).toEqual([404, { error: 'Not found', code: 'not_found' }]);
    }
    expect((await get(app.base, 'http://x/healthz')).status).toBe(200);
    const bad = await get(app.base, 'http://[::1/api');
    expect([bad.status, json(bad.body)]).toEqual([
      400,
      { error: 'The request target is neither a path nor an http(s) URL', code: 'bad_request' },
    ]);
    expect(bad.headers.get('x-request-id')).toBeTruthy();
  });

  it('answers what its HTTP parser refuses in the error shape, with a request id and the safety headers (Node wrote a bare status line)', async () => {
    const cases: [Parameters<typeof rawRequest>[1], number, string][] = [
      [
        { method: 'POST', target: '/api/auth/token', headers: [['content-length', 'abc']], framing: 'none' },
        400,
        'bad_request',
      ],
      [{ method: 'BREW', target: '/', headers: [] }, 400, 'bad_request'],
      [{ method: 'GET', target: Buffer.from([0x2f, 0xff, 0xfe]), headers: [] }, 400, 'bad_request'],
      [{ method: 'GET', target: '/healthz', headers: [['x-big', 'v'.repeat(20_000)]] }, 431, 'headers_too_large'],
    ];
    for (const [request, status, code] of cases) {
      const res = await rawRequest(app.base, request, 3_000);
      expect([res.status, (json(res.body) as { code: string }).code], String(request.target)).toEqual([status, code]);
      expect(res.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
      expect(res.headers.get('connection')).toBe('close');
    }
    expect((await get(app.base, '/healthz')).status).toBe(200);
  });

  it("answers the cabinet's missing files and a missing build as JSON errors, the 503 with Retry-After", async () => {
    const missing = await get(app.base, '/cabinet/assets/missing.js');
    expect([missing.status, json(missing.body)]).toEqual([404, { error: 'Not found', code: 'not_found' }]);
    expect((await get(app.base, '/cabinet/assets/a.js')).status).toBe(200);
    const notBuilt = await get(unbuilt.base, '/cabinet/campaigns');
    expect([notBuilt.status, notBuilt.headers.get('retry-after'), json(notBuilt.body)]).toEqual([
      503,
      '60',
      { error: 'The cabinet is not built yet', code: 'unavailable' },
    ]);
  });
});
