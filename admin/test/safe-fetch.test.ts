import { createServer, request } from 'node:http';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FETCH_FAILURES, checkConnectedAddress, safeGet } from '../src/verify/safe-fetch.ts';
import type { SafeFetchOptions } from '../src/verify/safe-fetch.ts';

/** A local web server whose answers the path chooses; it counts what reached it. */
let server: Server;
let port = 0;
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const path = req.url ?? '/';
    hits.push(path);
    const redirect = (location: string) => res.writeHead(302, { location }).end();
    if (path === '/ok') return void res.end('fine');
    if (path === '/to-private') return redirect('http://10.0.0.7/admin');
    if (path === '/to-metadata') return redirect('http://169.254.169.254/latest/meta-data/');
    if (path === '/to-nat64-loopback') return redirect(`http://[64:ff9b::7f00:1]:${port}/ok`);
    if (path === '/to-nat64-public') return redirect('http://[64:ff9b::808:808]/');
    if (path === '/to-6to4-public') return redirect('http://[2002:808:808::1]/');
    if (path === '/to-mapped-loopback') return redirect(`http://[::ffff:127.0.0.1]:${port}/ok`);
    if (path === '/to-bad-url') return redirect('http://[not-an-address/');
    if (path === '/to-file') return redirect('file:///etc/passwd');
    if (path === '/to-named-private') return redirect(`http://intranet.test:${port}/ok`);
    if (path.startsWith('/loop')) return redirect(`/loop${path.length}`);
    if (path.startsWith('/slow-hop')) return void setTimeout(() => redirect(`/slow-hop${path.length}`), 250);
    res.writeHead(404).end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => {
  server.closeAllConnections();
  server.close();
});

const options = (extra: Partial<SafeFetchOptions> = {}): SafeFetchOptions => ({
  timeoutMs: 2_000,
  maxBytes: 1024,
  maxRedirects: 5,
  allowLoopback: true,
  staticHosts: new Map([['intranet.test', '192.168.7.7']]),
  ...extra,
});
const local = (path: string) => `http://127.0.0.1:${port}${path}`;

describe('safeGet against a real server', () => {
  it('follows a plain request to the end', async () => {
    expect(await safeGet(local('/ok'), options())).toMatchObject({ ok: true, status: 200, body: 'fine' });
  });

  it.each([
    ['/to-private', 'refused_address', '10.0.0.7'],
    ['/to-metadata', 'refused_address', '169.254.169.254'],
    ['/to-nat64-loopback', 'refused_address', 'nat64:loopback'],
    ['/to-nat64-public', 'refused_address', '(nat64)'],
    ['/to-6to4-public', 'refused_address', '(6to4)'],
    ['/to-named-private', 'refused_address', '192.168.7.7'],
    ['/to-bad-url', 'bad_redirect', 'not-an-address'],
    ['/to-file', 'bad_redirect', 'file:'],
    ['/loop', 'too_many_redirects', 'more than 5 redirects'],
  ] as const)('a redirect %s fails as %s, the detail kept for the log', async (path, reason, detail) => {
    const outcome = await safeGet(local(path), options());
    expect(outcome).toMatchObject({ ok: false, reason });
    expect(outcome.ok || outcome.detail).toContain(detail);
    // What a client may be shown for that reason names no address, port or answer.
    for (const leak of [detail, String(port), '127.0.0.1']) expect(FETCH_FAILURES[reason]).not.toContain(leak);
  });

  it('refuses loopback, written any way, unless switched on', async () => {
    const strict = options({ allowLoopback: false });
    const before = hits.length;
    expect(await safeGet(local('/ok'), strict)).toMatchObject({ ok: false, reason: 'refused_address' });
    expect(await safeGet(`http://localhost:${port}/ok`, strict)).toMatchObject({
      ok: false,
      reason: 'refused_address',
    });
    expect(await safeGet(`http://0x7f.1:${port}/ok`, strict)).toMatchObject({ ok: false, reason: 'refused_address' });
    expect(await safeGet(`http://[::ffff:127.0.0.1]:${port}/ok`, strict)).toMatchObject({
      ok: false,
      reason: 'refused_address',
    });
    expect(hits.length).toBe(before);
    // Switched on, an IPv4-mapped loopback address is the same loopback (NAT64 to it is not: see above).
    expect(await safeGet(local('/to-mapped-loopback'), options())).toMatchObject({ ok: true, status: 200 });
  });

  it('bounds the whole fetch, redirects included, by one time limit', async () => {
    // Each hop answers within the limit; together they do not.
    const outcome = await safeGet(local('/slow-hop'), options({ timeoutMs: 700, maxRedirects: 10 }));
    expect(outcome).toMatchObject({ ok: false, reason: 'timeout' });
  });

  it('fails a name that does not resolve as dns, an invalid URL as invalid_url, and never throws', async () => {
    expect(await safeGet('http://no-such-host.invalid/', options({ timeoutMs: 1_500 }))).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/^(dns|timeout)$/),
    });
    for (const bad of ['https://{geo}/', 'http:///', 'not a url', 'ftp://example.com/', 'javascript:alert(1)'])
      expect(await safeGet(bad, options())).toMatchObject({ ok: false });
    expect(await safeGet('http:///', options())).toMatchObject({ reason: 'invalid_url' });
  });
});

describe('the connect-time check', () => {
  it('drops a connection made to a refused address before the request is written, whatever the lookup said', async () => {
    const before = hits.length;
    // A request whose own lookup is not guarded: only the check of the connected socket stands in the way.
    const req = request({ host: '127.0.0.1', port, path: '/ok', agent: false });
    checkConnectedAddress(req, { allowLoopback: false });
    const error = await new Promise<Error & { reason?: string }>((resolve) => {
      req.on('error', resolve);
      req.on('response', () => resolve(new Error('answered')));
      req.end();
    });
    expect(error.reason).toBe('refused_address');
    expect(error.message).toContain('127.0.0.1');
    await new Promise((r) => setTimeout(r, 100));
    expect(hits.length).toBe(before);
  });
});
