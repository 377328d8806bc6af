import { processAlive } from '@adnet/runtime/process-alive';
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { z } from 'zod';

/**
 * `DATA_DIR/run.json`: what `pnpm start` leaves for the CLI while it runs, so that a command finds the
 * product that uses a data directory (its base URLs and which Redis it uses) instead of opening a
 * database of its own. No secret in it: the private Redis' password stays in `redis/redis.password`,
 * and an external Redis is named by the operator's own REDIS_URL.
 */
export const runFileSchema = z.object({
  pid: z.number().int().positive(),
  baseUrl: z.string(),
  adBaseUrl: z.string(),
  dataDir: z.string(),
  redis: z.enum(['private', 'external']),
  startedAt: z.string(),
});
export type RunFile = z.infer<typeof runFileSchema>;

export const runFilePath = (dataDir: string): string => join(resolve(dataDir), 'run.json');

export async function writeRunFile(run: RunFile): Promise<void> {
  await mkdir(run.dataDir, { recursive: true });
  await writeFile(runFilePath(run.dataDir), JSON.stringify(run, null, 2) + '\n', { mode: 0o600 });
}

/** Removes the run file if it is still this process's (a second start may have replaced it). */
export async function removeRunFile(dataDir: string, pid: number): Promise<void> {
  const run = await readFile(runFilePath(dataDir), 'utf8').then(parseRun, () => undefined);
  if (run?.pid === pid) await rm(runFilePath(dataDir), { force: true });
}

function parseRun(text: string): RunFile | undefined {
  try {
    const r = runFileSchema.safeParse(JSON.parse(text));
    return r.success ? r.data : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The product running on `dataDir`: its run file, when there is one and its process lives. A file left by
 * a product that was killed (no chance to remove it) names a dead process and counts as none.
 */
export function runningProduct(dataDir: string): RunFile | undefined {
  let text: string;
  try {
    text = readFileSync(runFilePath(dataDir), 'utf8');
  } catch {
    return undefined;
  }
  const run = parseRun(text);
  return run && processAlive(run.pid) ? run : undefined;
}
