import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { us_listen_socket } from 'uWebSockets.js';
import { describe, expect, it } from 'vitest';
import { bundledNode24 } from '../src/engine-node.ts';
import { PATCHED_UWS_DIR, loadNativeUws, nativeUwsPath } from '../src/http/uws.ts';

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

  it('on the bundled Node 24, is the patched newer build, mapped into the process, and serves HTTP', () => {
    // The engines' default road on this machine kind (ENGINE_NODE=auto): its absence is a failure, not a skip.
    const node24 = bundledNode24();
    expect(node24).toBeDefined();
    const probe = fileURLToPath(new URL('./support/uws-native-probe.ts', import.meta.url));
    const out = JSON.parse(execFileSync(node24!, ['--import', 'tsx', probe], { encoding: 'utf8' })) as Record<
      string,
      unknown
    >;
    expect(out).toEqual({
      abi: '137',
      path: `${PATCHED_UWS_DIR}/uws_linux_x64_137.node`,
      mapped: true,
      body: 'pong',
      uwsHeader: expect.any(String),
    });
  });
});
