import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { chooseEngineNode } from '@adnet/engine/engine-node';
import type { EventFields } from '@adnet/schemas/events';
import { Redis } from 'ioredis';
import { freePort } from './redis.ts';
import { streamedEvents } from './engine.ts';

const MAIN = fileURLToPath(import.meta.resolve('@adnet/engine/main'));
// The Node `pnpm start` would give the engines (ENGINE_NODE, default auto: Node 24 where it loads here).
const NODE = chooseEngineNode(process.env.ENGINE_NODE ?? 'auto');

export interface EngineChild {
  child: ChildProcess;
  base: string;
  metricsPort: number;
  /** Everything it wrote to stdout and stderr. */
  output: () => string;
  exit: Promise<number | null>;
}

/** One engine as its own process (`engine/src/main.ts`) on the engines' Node, as a deployment runs it. */
export async function spawnEngine(env: Record<string, string>): Promise<EngineChild> {
  const port = Number(env.PORT ?? (await freePort()));
  const child = spawn(NODE.execPath, ['--import', 'tsx', MAIN], {
    env: {
      ...process.env,
      LOG_LEVEL: 'info',
      TRACKING_SECRET: 't'.repeat(40),
      METRICS_PORT: '0',
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  const metricsPort = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`engine did not start:\n${out}`)), 30_000);
    child.on('message', (m: { type?: string; metricsPort?: number }) => {
      if (m.type === 'listening') {
        clearTimeout(timer);
        resolve(m.metricsPort ?? 0);
      }
    });
    void exit.then((code) => reject(new Error(`engine exited (${code}) before listening:\n${out}`)));
  });
  return { child, base: `http://127.0.0.1:${port}`, metricsPort, output: () => out, exit };
}

/** Every event in the stream, decoded. */
export async function streamEvents(redisUrl: string): Promise<EventFields[]> {
  const redis = new Redis(redisUrl);
  try {
    return await streamedEvents(redis);
  } finally {
    await redis.quit();
  }
}
