import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../log.ts';

const ENGINE_MAIN = fileURLToPath(new URL('../../../engine/src/main.ts', import.meta.url));

export interface EngineProcess {
  stop(): Promise<void>;
}

/**
 * Runs one engine as a child process (its own event loop and uWS app) and
 * waits until it listens. The engine's JSON log lines share our stdout.
 * If it dies on its own, the product stops: a supervisor (systemd, Kubernetes)
 * restarts the whole, rather than us serving without the engine.
 */
export function startEngineProcess(opts: { env: NodeJS.ProcessEnv; log: Logger }): Promise<EngineProcess> {
  // The IPC channel carries the "listening" message: readiness must not depend on the log level.
  const child = spawn(process.execPath, ['--import', 'tsx', ENGINE_MAIN], { env: opts.env, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let stopping = false;
  void exited.then((code) => {
    if (!stopping) {
      opts.log.fatal({ event: 'engine.died', code }, 'engine process exited');
      process.exit(1);
    }
  });
  return new Promise((resolve, reject) => {
    child.on('message', (msg: { type?: string }) => {
      if (msg.type === 'listening') {
        resolve({
          async stop() {
            stopping = true;
            child.kill('SIGTERM');
            await exited;
          },
        });
      }
    });
    void exited.then((code) => reject(new Error(`engine exited with code ${code} before listening`)));
  });
}
