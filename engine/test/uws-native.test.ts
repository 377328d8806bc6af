import { readFileSync } from 'node:fs';
import type { us_listen_socket } from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import { loadNativeUws, nativeUwsPath } from '../src/http/uws.ts';

describe('uWebSockets.js', () => {
  it('is the native binary, mapped into this process, and serves HTTP', async () => {
    const uws = loadNativeUws();
    expect(readFileSync('/proc/self/maps', 'utf8')).toContain(nativeUwsPath());
    const app = uws.App().get('/ping', (res) => {
      res.writeHeader('content-type', 'text/plain').end('pong');
    });
    const socket = await new Promise<us_listen_socket>((resolve, reject) =>
      app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen failed')))),
    );
    const port = uws.us_socket_local_port(socket);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/ping`);
      expect(await res.text()).toBe('pong');
      // The fallback is node:http underneath and answers with its own Date/Connection headers; uWS sends "uWebSockets".
      expect(res.headers.get('uwebsockets')).not.toBeNull();
    } finally {
      uws.us_listen_socket_close(socket);
    }
  });
});
