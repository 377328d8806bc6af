import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const ROOT = new URL('../../..', import.meta.url).pathname;
const dirs: string[] = [];
const launched: Running[] = [];

export interface Running {
  child: ChildProcess;
  base: string;
  out: () => string;
  exit: Promise<number | null>;
}

/**
 * Starts the product. `via: 'start-script'` runs package.json's start script through `sh -c`, as pnpm does,
 * in a process group of its own (so `stopLaunched` reaches whatever the shell left behind); the default runs
 * the launcher itself.
 */
export function launch(
  env: Record<string, string>,
  waitFor = 'Ad network is up',
  via: 'launcher' | 'start-script' = 'launcher',
): Promise<Running> {
  // Any free metrics port unless a test names one: launches run side by side.
  const childEnv = { ...process.env, LOG_LEVEL: 'warn', METRICS_PORT: '0', ...env };
  const child =
    via === 'launcher'
      ? spawn(process.execPath, ['--import', 'tsx', 'launcher/src/start.ts'], {
          cwd: ROOT,
          env: childEnv,
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      : spawn('sh', ['-c', startScript()], {
          cwd: ROOT,
          env: { ...childEnv, PATH: `${ROOT}node_modules/.bin:${process.env.PATH}` },
          stdio: ['ignore', 'pipe', 'pipe'],
          detached: true,
        });
  let out = '';
  const running: Running = {
    child,
    base: '',
    out: () => out,
    exit: new Promise((r) => child.once('exit', (code) => r(code))),
  };
  launched.push(running);
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exit = running.exit;
  return new Promise((resolve, reject) => {
    // Generous: the product builds the cabinet and opens chDB on start, which takes far longer on a busy machine.
    const timer = setTimeout(() => reject(new Error(`no start within 45 s:\n${out}`)), 45_000);
    const up = () => resolve({ child, base: /Ad network is up at (\S+)/.exec(out)?.[1] ?? '', out: () => out, exit });
    const check = () => {
      if (!out.includes(waitFor)) return;
      clearTimeout(timer);
      up();
    };
    child.stdout?.on('data', check);
    child.stderr?.on('data', check);
    // 'close', not 'exit': the output is all read by then, so a product that printed waitFor and stopped (a
    // wrong variable) resolves, and one that stopped before it is an error that shows why.
    child.once('close', (code) => {
      clearTimeout(timer);
      if (out.includes(waitFor)) up();
      else reject(new Error(`stopped (exit ${code}) before "${waitFor}":\n${out}`));
    });
  });
}

const startScript = (): string =>
  (JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')) as { scripts: { start: string } }).scripts.start;

export const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), 'adnet-start-'));
  dirs.push(d);
  return d;
};

/** For afterAll: a failed test must not leave a product running; SIGTERM lets it stop its engines and Redis. */
export async function stopLaunched(): Promise<void> {
  for (const r of launched) {
    if (r.child.exitCode === null && r.child.signalCode === null) r.child.kill('SIGTERM');
    // A start script's group: whatever its shell left running when the shell itself went.
    if (r.child.spawnargs[0] === 'sh' && r.child.pid) {
      try {
        process.kill(-r.child.pid, 'SIGTERM');
      } catch {
        // The group is gone: everything in it stopped.
      }
    }
  }
  await Promise.all(launched.map((r) => Promise.race([r.exit, new Promise((res) => setTimeout(res, 10_000))])));
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
}

export interface CliRun {
  status: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** `pnpm adnet …` as a subprocess with exactly the environment given (tests drop REDIS_URL where it must not leak). */
export function runCli(env: NodeJS.ProcessEnv, args: string[]): Promise<CliRun> {
  const started = performance.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'launcher/src/adnet.ts', ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) =>
    child.once('close', (status) => resolve({ status, stdout, stderr, ms: performance.now() - started })),
  );
}
