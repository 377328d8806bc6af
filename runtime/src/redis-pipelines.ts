import type { ChainableCommander, Redis } from 'ioredis';

/** Each command's error or reply, as a pipeline's `exec` gives them. */
export type PipelineReplies = [error: Error | null, reply: unknown][];

/**
 * Commands on many keys (each key's in the order `add` puts them): one pipeline on one server. A Redis
 * Cluster refuses a pipeline whose keys are served by more than one master ("All keys in the pipeline should
 * belong to the same slots allocation group"), so there each key gets a pipeline of its own, all sent at once:
 * the replies come back in the same order either way.
 */
export async function pipelineByKey(
  redis: Redis,
  keys: readonly string[],
  add: (pipeline: ChainableCommander, key: string, i: number) => void,
): Promise<PipelineReplies> {
  if (!redis.isCluster) {
    const p = redis.pipeline();
    for (let i = 0; i < keys.length; i++) add(p, keys[i] as string, i);
    return keys.length ? ((await p.exec()) ?? []) : [];
  }
  const each = await Promise.all(
    keys.map(async (key, i) => {
      const p = redis.pipeline();
      add(p, key, i);
      return (await p.exec()) ?? [];
    }),
  );
  return each.flat();
}
