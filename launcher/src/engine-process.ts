import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { Logger } from '@adnet/admin/log';

// Through the engine package's exports, so the engine may move its files without the launcher knowing.
const ENGINE_MAIN = fileURLToPath(import.meta.resolve('@adnet/engine/main'));

export interface EngineProcess {
  /** Resolves once the engine listens (it says so over IPC, whatever the log level). */
  ready: Promise<void>;
  /** SIGTERM and wait: the engine drains and flushes before it exits. */
  stop(): Promise<void>;
}

/**
 * Runs one engine as a child process (its own event loop and uWS app). Its
 * JSON log lines share our stdout. If it dies on its own, the product stops:
 * a supervisor (systemd, Kubernetes) restarts the whole, rather than us
 * serving without the engine. `execPath` is the Node binary it runs on
 * (ENGINE_NODE, chosen once by `chooseEngineNode`); `nodeArgs`, V8's arguments for it (engineNodeArgs).
 */
export function startEngineProcess(opts: {
  env: NodeJS.ProcessEnv;
  log: Logger;
  execPath: string;
  nodeArgs?: readonly string[];
}): EngineProcess {
  const child = spawn(opts.execPath, [...(opts.nodeArgs ?? []), '--import', 'tsx', ENGINE_MAIN], {
    env: opts.env,
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  let stopping = false;
  void exited.then((code) => {
    if (!stopping) {
      opts.log.fatal({ event: 'engine.died', code }, 'engine process exited');
      process.kill(process.pid, 'SIGTERM');
    }
  });
  const ready = new Promise<void>((resolve, reject) => {
    child.on('message', (msg: { type?: string }) => msg.type === 'listening' && resolve());
    void exited.then((code) => reject(new Error(`engine exited with code ${code} before listening`)));
  });
  return {
    ready,
    async stop() {
      stopping = true;
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
