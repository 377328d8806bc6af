import type { Redis } from 'ioredis';

/**
 * The commands Redis executed while `pass` ran, as MONITOR shows them (name in lower case, then arguments):
 * what a pass read is counted on the server, whatever the client batched.
 */
export async function commandsDuring(redis: Redis, pass: () => Promise<void>): Promise<string[][]> {
  const seen: string[][] = [];
  const monitor = await redis.monitor();
  monitor.on('monitor', (_time: string, args: string[]) =>
    seen.push([String(args[0]).toLowerCase(), ...args.slice(1)]),
  );
  try {
    await pass();
    // MONITOR streams what ran in order: once this marker is seen, everything the pass sent was.
    const marker = `end-of-pass-${Math.random()}`;
    await redis.echo(marker);
    for (let i = 0; i < 500 && !seen.some((c) => c[0] === 'echo' && c[1] === marker); i++)
      await new Promise((r) => setTimeout(r, 10));
    return seen.filter((c) => !(c[0] === 'echo' && c[1] === marker));
  } finally {
    monitor.disconnect();
  }
}

/** The keys the commands named `name` were sent for. */
export const keysOf = (commands: string[][], name: string): string[] =>
  commands.filter((c) => c[0] === name).map((c) => c[1] as string);
