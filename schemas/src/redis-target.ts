/** Where Redis is: one server, or the seed nodes of a Redis Cluster. */
export type RedisTarget =
  | { kind: 'single'; url: string }
  | { kind: 'cluster'; nodes: { host: string; port: number }[]; username?: string; password?: string; tls: boolean };

const NODE_RE = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5})$/;

/**
 * `redis://` and `rediss://` name one server. A cluster is
 * `redis+cluster://[user:password@]host:port,host:port,...` (or `rediss+cluster://`
 * for TLS): a standard URL cannot hold several hosts, and any reachable master
 * or replica is enough for the client to learn the rest of the cluster.
 */
export function parseRedisTarget(value: string): RedisTarget | undefined {
  const cluster = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/.exec(value);
  if (cluster) {
    const [, scheme, auth, hosts] = cluster as unknown as [string, string, string | undefined, string];
    const nodes: { host: string; port: number }[] = [];
    for (const part of hosts.split(',')) {
      const m = NODE_RE.exec(part.trim());
      if (!m) return undefined;
      const port = Number(m[2]);
      if (port < 1 || port > 65_535) return undefined;
      nodes.push({ host: (m[1] as string).replace(/^\[|\]$/g, ''), port });
    }
    let username: string | undefined;
    let password: string | undefined;
    if (auth) {
      const colon = auth.indexOf(':');
      username = decodeURIComponent(colon < 0 ? auth : auth.slice(0, colon)) || undefined;
      password = colon < 0 ? undefined : decodeURIComponent(auth.slice(colon + 1));
    }
    return { kind: 'cluster', nodes, username, password, tls: scheme === 'rediss' };
  }
  try {
    const url = new URL(value);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname
      ? { kind: 'single', url: value }
      : undefined;
  } catch {
    return undefined;
  }
}
