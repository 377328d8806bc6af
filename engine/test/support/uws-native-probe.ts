// Run under another Node by uws-native.test.ts: loads uWS as the engine does, serves one request, and prints
// what the test checks as one JSON line.
import { readFileSync } from 'node:fs';
import type { us_listen_socket } from 'uWebSockets.js';
import { loadNativeUws, nativeUwsPath } from '../../src/http/uws.ts';

const uws = loadNativeUws();
const path = nativeUwsPath();
const app = uws.App().get('/ping', (res) => {
  res.writeHeader('content-type', 'text/plain').end('pong');
});
const socket = await new Promise<us_listen_socket>((resolve, reject) =>
  app.listen('127.0.0.1', 0, (s) => (s ? resolve(s) : reject(new Error('listen failed')))),
);
const res = await fetch(`http://127.0.0.1:${uws.us_socket_local_port(socket)}/ping`);
process.stdout.write(
  JSON.stringify({
    abi: process.versions.modules,
    path,
    mapped: readFileSync('/proc/self/maps', 'utf8').includes(path),
    body: await res.text(),
    uwsHeader: res.headers.get('uwebsockets'),
  }) + '\n',
);
uws.us_listen_socket_close(socket);
