import { SAFE_RESPONSE_HEADERS } from '@adnet/schemas/http-headers';
import { createServer } from 'node:http';
import type { Server } from 'node:http';
import { listenOn } from './listen.ts';
import type { Logger } from '../log.ts';
import type { AdminHealth } from '../observability/health.ts';
import type { AdminMetrics } from '../observability/admin-metrics.ts';
import { readiness } from './readiness.ts';

/** The registry Prometheus scrapes and the probes' answer; nothing that reaches Redis on a request. */
export interface OpsPorts {
  log: Logger;
  metrics: Pick<AdminMetrics, 'registry'>;
  health: Pick<AdminHealth, 'readiness'>;
}

export interface OpsServer {
  server: Server;
  listen(port: number, host: string): Promise<number>;
  close(): Promise<void>;
}

/**
 * The operators' address: Prometheus metrics and the probes, kept off the
 * public port so scrapes and health checks are not exposed to the internet.
 */
export function createOpsServer(svc: OpsPorts): OpsServer {
  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    const answer = async (): Promise<[number, string, string]> => {
      if (req.method !== 'GET') return [405, 'application/json', '{"error":"Use GET","code":"method_not_allowed"}'];
      if (path === '/metrics') return [200, svc.metrics.registry.contentType, await svc.metrics.registry.metrics()];
      if (path === '/healthz') return [200, 'application/json', '{"ok":true}'];
      if (path === '/readyz') {
        const ready = readiness(svc);
        return [ready.ok ? 200 : 503, 'application/json', JSON.stringify(ready)];
      }
      return [404, 'application/json', '{"error":"Not found","code":"not_found"}'];
    };
    answer().then(
      ([status, type, body]) => res.writeHead(status, { ...SAFE_RESPONSE_HEADERS, 'content-type': type }).end(body),
      (err: unknown) => {
        svc.log.error({ err }, 'metrics request failed');
        res
          .writeHead(500, { ...SAFE_RESPONSE_HEADERS, 'content-type': 'application/json' })
          .end('{"error":"Internal server error","code":"internal"}');
      },
    );
  });
  return {
    server,
    listen: (port, host) => listenOn(server, port, host),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
