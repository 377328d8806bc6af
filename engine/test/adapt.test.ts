import { NO_CONTENT_CSP } from '@adnet/schemas/http-headers';
import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import { afterAll, describe, expect, it } from 'vitest';
import { addRoute, InFlight, json } from '../src/http/adapt.ts';
import type { RouteContext } from '../src/http/adapt.ts';
import { loadNativeUws } from '../src/http/uws.ts';

// The request adapter over a real uWS: what a route is told (the peer's address in each socket family,
// method, path, query) and what the answer carries (status, safety headers, the route's headers, the
// request id), the last written by the adapter as joined lines.
const uws = loadNativeUws();
const sockets: us_listen_socket[] = [];
afterAll(() => sockets.forEach((s) => uws.us_listen_socket_close(s)));

function app(ctx: RouteContext): TemplatedApp {
  const a = uws.App();
  const echo = (req: { ip: string; method: string; path: string; query: string; params: readonly string[] }) =>
    json(
      200,
      { ip: req.ip, method: req.method, path: req.path, query: req.query, params: req.params },
      { 'x-extra': 'one', 'cache-control': 'no-store' },
    );
  addRoute(a, { method: 'get', pattern: '/fixed', handler: echo, options: {} }, ctx);
  addRoute(a, { method: 'get', pattern: '/p/:id', handler: echo, options: { params: 1 } }, ctx);
  addRoute(a, { method: 'post', pattern: '/body', handler: echo, options: { maxBody: 1024, query: false } }, ctx);
  addRoute(a, { method: 'any', pattern: '/*', handler: () => ({ status: 204 }), options: {} }, ctx);
  return a;
}
async function listen(host: string, ctx: RouteContext): Promise<number> {
  const s = await new Promise<us_listen_socket>((resolve, reject) =>
    app(ctx).listen(host, 0, (l) => (l ? resolve(l) : reject(new Error('listen failed')))),
  );
  sockets.push(s);
  return uws.us_socket_local_port(s);
}
const context = (): RouteContext => ({ inFlight: new InFlight(), idPrefix: 'eng-t', onError: () => undefined });

describe('request adapter', () => {
  it("tells the route the peer's address on an IPv4 socket, and IPv4 and IPv6 peers on a dual-stack one", async () => {
    const v4 = await listen('127.0.0.1', context());
    const dual = await listen('::', context());
    const ipOf = async (url: string) => ((await (await fetch(url)).json()) as { ip: string }).ip;
    expect(await ipOf(`http://127.0.0.1:${v4}/fixed`)).toBe('127.0.0.1');
    expect(await ipOf(`http://127.0.0.1:${dual}/fixed`)).toBe('127.0.0.1');
    // Other IPv6 peers in the canonical form (uWS's own text writes every group out in full).
    expect(await ipOf(`http://[::1]:${dual}/fixed`)).toBe('::1');
  });

  it('gives method, path, query and parameters as asked, and no query to a route that reads none', async () => {
    const port = await listen('127.0.0.1', context());
    expect(await (await fetch(`http://127.0.0.1:${port}/fixed?a=1`)).json()).toMatchObject({
      method: 'get',
      path: '/fixed',
      query: 'a=1',
      params: [],
    });
    expect(await (await fetch(`http://127.0.0.1:${port}/p/42?b=2`)).json()).toMatchObject({
      method: 'get',
      path: '/p/42',
      query: 'b=2',
      params: ['42'],
    });
    const posted = await fetch(`http://127.0.0.1:${port}/body?c=3`, { method: 'POST', body: '{}' });
    expect(await posted.json()).toMatchObject({ method: 'post', path: '/body', query: '' });
  });

  it("answers with the status, the safety headers, the route's headers and the request id, and closes when draining", async () => {
    const ctx = context();
    const port = await listen('127.0.0.1', ctx);
    const res = await fetch(`http://127.0.0.1:${port}/fixed`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.status).toBe(200);
    expect(res.statusText).toBe('OK');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-security-policy')).toBe(NO_CONTENT_CSP);
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.headers.get('x-extra')).toBe('one');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    expect(res.headers.get('connection')).not.toBe('close');

    const none = await fetch(`http://127.0.0.1:${port}/other`, { method: 'DELETE' });
    expect(none.status).toBe(204);
    expect(none.headers.get('x-content-type-options')).toBe('nosniff');
    expect(none.headers.get('x-request-id')).toMatch(/^eng-t-[0-9a-z]+$/);

    ctx.inFlight.draining = true;
    const last = await fetch(`http://127.0.0.1:${port}/fixed`);
    expect(last.headers.get('connection')).toBe('close');
    expect(last.headers.get('x-extra')).toBe('one');
  });
});
