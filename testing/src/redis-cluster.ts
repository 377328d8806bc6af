import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { freePort } from './redis.ts';

export interface TestRedisCluster {
  /** `redis+cluster://` with every node as a seed. */
  url: string;
  ports: number[];
  /** A direct connection to one node (not cluster-aware). */
  node(port: number): Redis;
  /** The master port serving the slot of `key`, and its replica. */
  ownerOf(key: string): Promise<{ master: number; replica: number }>;
  /** CLUSTER FAILOVER on the replica: it becomes the master of that shard; resolves once every node agrees. */
  failover(replicaPort: number): Promise<void>;
  stop(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A real local Redis Cluster: `masters` shards with one replica each, each node a
 * redis-server with `--cluster-enabled yes` on a free port, joined by
 * `redis-cli --cluster create`.
 */
export async function startRedisCluster(masters = 3): Promise<TestRedisCluster> {
  // Each node's cluster bus gets a free port of its own too: the default (port + 10000) is a port
  // nobody checked, which another test may have just been handed for its own server.
  const picked = new Set<number>();
  const pick = async () => {
    for (;;) {
      const p = await freePort();
      if (picked.has(p)) continue;
      picked.add(p);
      return p;
    }
  };
  const ports: number[] = [];
  const busPorts = new Map<number, number>();
  while (ports.length < masters * 2) {
    const p = await pick();
    ports.push(p);
    busPorts.set(p, await pick());
  }
  const dir = mkdtempSync(join(tmpdir(), 'adnet-cluster-'));
  // A folder per node: replicas load their full sync from dump.rdb in their own folder, and nodes sharing one
  // would load each other's data.
  const children: ChildProcess[] = ports.map((port) => {
    const own = join(dir, String(port));
    mkdirSync(own);
    return spawn(
      'redis-server',
      [
        '--port',
        String(port),
        '--bind',
        '127.0.0.1',
        '--dir',
        own,
        '--cluster-enabled',
        'yes',
        '--cluster-config-file',
        'nodes.conf',
        '--cluster-port',
        String(busPorts.get(port)),
        '--cluster-node-timeout',
        '2000',
        '--appendonly',
        'yes',
        '--save',
        '',
      ],
      { stdio: 'ignore' },
    );
  });
  const nodes = new Map(
    ports.map((p) => [
      p,
      new Redis(p, '127.0.0.1', { lazyConnect: false, retryStrategy: () => 50, maxRetriesPerRequest: null }),
    ]),
  );
  for (const c of nodes.values()) c.on('error', () => undefined);
  const node = (port: number) => nodes.get(port) as Redis;
  for (const p of ports)
    for (
      let i = 0;
      i < 200 &&
      (await node(p)
        .ping()
        .catch(() => '')) !== 'PONG';
      i++
    )
      await sleep(25);
  const created = spawnSync(
    'redis-cli',
    ['--cluster', 'create', ...ports.map((p) => `127.0.0.1:${p}`), '--cluster-replicas', '1', '--cluster-yes'],
    {
      encoding: 'utf8',
      timeout: 30_000,
    },
  );
  if (created.status !== 0) throw new Error(`redis-cli --cluster create failed: ${created.stdout}${created.stderr}`);

  const agreed = async () => {
    for (const p of ports) if (!/cluster_state:ok/.test(String(await node(p).cluster('INFO')))) return false;
    return true;
  };
  const waitAgreed = async () => {
    for (let i = 0; i < 400; i++) {
      if (await agreed()) return;
      await sleep(50);
    }
    throw new Error('redis cluster did not reach cluster_state:ok');
  };
  await waitAgreed();

  // From CLUSTER NODES: "<id> <host:port@bus> <flags> <master id|-> ... <slot ranges>".
  const ownerOf = async (key: string) => {
    const slot = Number(await node(ports[0] as number).cluster('KEYSLOT', key));
    for (let i = 0; i < 200; i++) {
      const lines = String(await node(ports[0] as number).cluster('NODES'))
        .trim()
        .split('\n')
        .map((l) => l.split(' '));
      const portOf = (fields: string[]) => Number((fields[1] ?? '').split('@')[0]?.split(':')[1]);
      const master = lines.find(
        (f) =>
          (f[2] ?? '').includes('master') &&
          !(f[2] ?? '').includes('fail') &&
          f.slice(8).some((r) => {
            const [from = -1, to = from] = r.split('-').map(Number);
            return slot >= from && slot <= to;
          }),
      );
      const replica = master && lines.find((f) => (f[2] ?? '').includes('slave') && f[3] === master[0]);
      if (master && replica) return { master: portOf(master), replica: portOf(replica) };
      await sleep(50);
    }
    throw new Error(`no master with a replica owns slot ${slot}`);
  };

  return {
    url: `redis+cluster://${ports.map((p) => `127.0.0.1:${p}`).join(',')}`,
    ports,
    node,
    ownerOf,
    async failover(replicaPort) {
      await node(replicaPort).cluster('FAILOVER');
      for (let i = 0; i < 400; i++) {
        if (String(await node(replicaPort).info('replication')).includes('role:master') && (await agreed())) return;
        await sleep(50);
      }
      throw new Error(`failover to ${replicaPort} did not complete`);
    },
    async stop() {
      for (const c of nodes.values()) c.disconnect();
      await Promise.all(
        children.map(
          (c) => new Promise((r) => (c.exitCode !== null ? r(null) : (c.once('exit', r), c.kill('SIGTERM')))),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
