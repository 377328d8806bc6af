import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DspClient, callableUrl } from '../src/demand/dsp-client.ts';

// The outgoing side's SSRF rules, against a real local server: the same as postbacks.
let server: ReturnType<typeof createServer>;
let port = 0;
let hits = 0;
beforeAll(async () => {
  server = createServer((req, res) => {
    hits++;
    res.statusCode = req.url?.startsWith('/slow') ? 200 : 204;
    if (req.url?.startsWith('/slow')) setTimeout(() => res.end('{}'), 150);
    else res.end();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((r) => server.close(() => r())));

describe('DspClient', () => {
  it('calls only https endpoints, or http on loopback when loopback is allowed', () => {
    expect(callableUrl('https://dsp.example/bid', false)).toBeDefined();
    expect(callableUrl('http://dsp.example/bid', false)).toBeUndefined();
    expect(callableUrl('http://dsp.example/bid', true)).toBeUndefined();
    expect(callableUrl('http://127.0.0.1:9/bid', true)).toBeDefined();
    expect(callableUrl('https://user:pw@dsp.example/bid', false)).toBeUndefined();
  });

  it('refuses loopback and private addresses without the flag, before a byte is sent', async () => {
    const strict = new DspClient({ allowLoopback: false });
    const before = hits;
    expect(await strict.postBid({ id: 1, endpoint: `https://127.0.0.1:${port}/bid` }, '{}', 100)).toMatchObject({
      kind: 'refused',
    });
    expect(await strict.postBid({ id: 1, endpoint: `https://localhost:${port}/bid` }, '{}', 100)).toMatchObject({
      kind: 'refused',
    });
    expect(await strict.postBid({ id: 1, endpoint: 'https://10.1.2.3/bid' }, '{}', 100)).toMatchObject({
      kind: expect.stringMatching(/refused|timeout/),
    });
    expect(await strict.notify(`http://127.0.0.1:${port}/win`, 100)).toBe(false);
    expect(hits).toBe(before);
    strict.close();
  });

  it('with the flag, reaches loopback; a slow answer is a timeout, then read and counted late', async () => {
    const late: number[] = [];
    const c = new DspClient({ allowLoopback: true, onLate: (id) => late.push(id) });
    expect(await c.postBid({ id: 4, endpoint: `http://127.0.0.1:${port}/bid` }, '{}', 100)).toEqual({ kind: 'nobid' });
    expect(await c.postBid({ id: 4, endpoint: `http://127.0.0.1:${port}/slow` }, '{}', 30)).toEqual({
      kind: 'timeout',
    });
    await new Promise((r) => setTimeout(r, 250));
    expect(late).toEqual([4]);
    c.close();
  });
});
