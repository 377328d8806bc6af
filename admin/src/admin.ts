import type { Config } from '@adnet/schemas/config';
import { createAdminServer } from './http/server.ts';
import type { AdminServer } from './http/server.ts';
import type { Ingester } from './ingest/ingester.ts';
import type { Logger } from './log.ts';
import { createServices } from './services.ts';
import type { Services } from './services.ts';
import { buildIngester, connectAdminRedis, openEventStore } from './wiring/connect.ts';
import { ADMIN_PARTS, backgroundParts, buildMail } from './wiring/parts.ts';
import type { AdminPart, Mail } from './wiring/parts.ts';
import { workerPorts } from './wiring/ports.ts';
import { Stopper } from './wiring/stop-order.ts';

export { ADMIN_PARTS };
export type { AdminPart };

export interface AdminOptions {
  config: Config;
  /** REDIS_URL, or the private server the launcher started. */
  redisUrl: string;
  log: Logger;
  /** The built cabinet, served under /cabinet. */
  cabinetDir?: string;
  /** The event store (CLICKHOUSE_URL or embedded chDB), migrated before anything serves; on unless false. */
  clickhouse?: boolean;
  /** Every part unless a test leaves out the ones it drives by hand (a worker on its own clock) or does not need. */
  parts?: readonly AdminPart[];
}

export interface Admin {
  svc: Services;
  server: AdminServer;
  /** The ingester, when it is one of the parts (tests wait on its backlog). */
  ingester: Ingester | undefined;
  /**
   * The mail worker and the low-balance watch: always built (tests drive them with `runOnce`), started
   * only when 'mail' is one of the parts.
   */
  mail: Mail;
  /** Starts the parts, then listens; resolves with the bound port (0 picks a free one). */
  start(at: { port: number; host: string }): Promise<number>;
  /** Stops whatever was built or started in STOP_ORDER (wiring/stop-order.ts); a part that fails to stop is logged and the rest still stop. */
  stop(): Promise<void>;
}

/**
 * The admin process's pieces, built and connected but not yet serving (as Fastify keeps `build`
 * apart from `listen`): `pnpm start` and the tests' fixtures call this same builder.
 */
export async function createAdmin(opts: AdminOptions): Promise<Admin> {
  const { config, log } = opts;
  const parts = new Set(opts.parts ?? ADMIN_PARTS);
  const stopper = new Stopper(log);
  try {
    const { redis, redisErrors } = await connectAdminRedis(opts.redisUrl, log, stopper);
    const clickhouse = opts.clickhouse === false ? undefined : await openEventStore(config, log, stopper);
    const ingester = parts.has('ingester')
      ? buildIngester(config, { redisUrl: opts.redisUrl, log, clickhouse, stopper })
      : undefined;
    const svc = createServices(config, redis, log, clickhouse);
    stopper.add('health probes', () => Promise.resolve(svc.health.stop()));
    await svc.health.start();
    const ports = workerPorts(svc);
    const server = createAdminServer(svc, { cabinetDir: opts.cabinetDir });
    const mail = buildMail(config, ports, svc.mailQueue, stopper);
    const background = backgroundParts({
      config,
      log,
      parts,
      ports,
      redis,
      redisErrors,
      clickhouse,
      ingester,
      mail,
      svc,
    });
    return {
      svc,
      server,
      ingester,
      mail,
      async start(at) {
        for (const part of background) {
          // Added before it starts: a part that fails halfway through starting is still stopped.
          if (part.step && part.stop) stopper.add(part.step, part.stop);
          await part.start();
        }
        stopper.add('admin', () => server.close());
        return server.listen(at.port, at.host);
      },
      stop: () => stopper.stop(),
    };
  } catch (err) {
    await stopper.stop();
    throw err;
  }
}
