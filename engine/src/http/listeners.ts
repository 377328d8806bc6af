import type { TemplatedApp, us_listen_socket } from 'uWebSockets.js';
import type { Uws } from './uws.ts';

export interface Listeners {
  /** The public port; resolves with the bound port (0 asks for any free one). */
  listen: (port: number, host: string) => Promise<number>;
  /** The operators' port (metrics, /healthz, /readyz). */
  listenOps: (port: number, host: string) => Promise<number>;
  /** First stop step: no new connections; requests in flight are still answered. */
  closePublic: () => void;
  closeOps: () => void;
}

/** The engine's two listening sockets, opened when asked and closed by the stop steps (wiring/stop.ts). */
export function listeners(uws: Uws, app: TemplatedApp, ops: TemplatedApp): Listeners {
  let socket: us_listen_socket | undefined;
  let opsSocket: us_listen_socket | undefined;
  const open = (on: TemplatedApp, port: number, host: string, what: string) =>
    new Promise<us_listen_socket>((resolve, reject) =>
      on.listen(host, port, (s) =>
        s ? resolve(s) : reject(new Error(`engine could not listen${what} on ${host}:${port}`)),
      ),
    );
  return {
    listen: async (port, host) => uws.us_socket_local_port((socket = await open(app, port, host, ''))),
    listenOps: async (port, host) =>
      uws.us_socket_local_port((opsSocket = await open(ops, port, host, ' for metrics'))),
    closePublic: () => {
      if (socket) uws.us_listen_socket_close(socket);
      socket = undefined;
    },
    closeOps: () => {
      if (opsSocket) uws.us_listen_socket_close(opsSocket);
      opsSocket = undefined;
    },
  };
}
