import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Listens and resolves with the bound port (port 0 picks a free one). */
export function listenOn(server: Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}
