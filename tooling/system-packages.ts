// `tsx tooling/system-packages.ts <start|test|bench>`: the README's commands run this first, so a
// fresh Debian machine gets the programs they need without a separate set-up step.
import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const PURPOSES = ['start', 'test', 'bench'] as const;
export type Purpose = (typeof PURPOSES)[number];

export interface Program {
  /** A name looked up on PATH, or an absolute path that must exist as it is. */
  command: string;
  /** The Debian package that provides it. */
  pkg: string;
  why: string;
  /** Where it counts as installed even when that folder is not on PATH (sbin, for users other than root). */
  alsoAt?: string;
}

const redisServer = (why: string): Program => ({ command: 'redis-server', pkg: 'redis-server', why });

/** What each purpose needs on this machine; `env` matters because an external Redis makes the private one unnecessary. */
export function programsFor(purpose: Purpose, env: Readonly<Record<string, string | undefined>>): Program[] {
  switch (purpose) {
    case 'start':
      // Empty counts as unset, as in loadConfig.
      return env.REDIS_URL ? [] : [redisServer('`pnpm start` runs a private Redis when REDIS_URL is not set')];
    case 'test':
      return [
        redisServer('the tests start their own Redis servers'),
        { command: 'redis-cli', pkg: 'redis-tools', why: 'the Redis Cluster tests create their cluster with it' },
        { command: 'xmllint', pkg: 'libxml2-utils', why: 'VAST output is validated against the IAB schema' },
        // playwright-core launches this exact path, not whatever `chromium` PATH finds.
        { command: '/usr/bin/chromium', pkg: 'chromium', why: "the widget's and cabinet's browser tests drive it" },
        {
          command: 'nginx',
          pkg: 'nginx-light',
          why: 'the load-balancer test puts it in front of three engines',
          alsoAt: '/usr/sbin/nginx',
        },
        { command: 'readelf', pkg: 'binutils', why: "the uWS patch's test reads the patched binary's symbols with it" },
      ];
    case 'bench':
      return [
        redisServer('the benchmarks start their own Redis'),
        { command: 'wrk', pkg: 'wrk', why: 'bench:wrk measures closed-loop throughput with it' },
      ];
  }
}

export type Plan =
  { action: 'none' } | { action: 'install'; packages: string[]; notice: string } | { action: 'fail'; message: string };

export interface Machine {
  root: boolean;
  aptGet: boolean;
}

const listed = (missing: readonly Program[]): string => missing.map((p) => `${p.command} (${p.why})`).join(', ');
const packagesOf = (missing: readonly Program[]): string[] => [...new Set(missing.map((p) => p.pkg))];

/** Decides what to do about the missing programs: nothing, install them (root with apt-get), or stop with the command to run. */
export function plan(purpose: Purpose, missing: readonly Program[], machine: Machine): Plan {
  if (missing.length === 0) return { action: 'none' };
  const packages = packagesOf(missing);
  if (machine.root && machine.aptGet) {
    return {
      action: 'install',
      packages,
      notice: `pnpm ${purpose}: installing ${packages.join(' ')} with apt-get for ${listed(missing)}`,
    };
  }
  return {
    action: 'fail',
    message: `pnpm ${purpose} needs programs that are not installed: ${listed(missing)}.\nInstall them with:\n  sudo apt-get install -y ${packages.join(' ')}`,
  };
}

/** After apt-get ran: whatever is still missing stops the command. */
export function afterInstall(purpose: Purpose, stillMissing: readonly Program[]): Plan {
  if (stillMissing.length === 0) return { action: 'none' };
  return { action: 'fail', message: `pnpm ${purpose}: apt-get ran, but still missing: ${listed(stillMissing)}` };
}

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir !== '' && executable(join(dir, command)));
}

function installed(p: Program): boolean {
  if (isAbsolute(p.command)) return executable(p.command);
  return onPath(p.command) || (p.alsoAt !== undefined && executable(p.alsoAt));
}

function finish(result: Plan): void {
  if (result.action === 'fail') {
    console.error(result.message);
    process.exit(1);
  }
}

function run(args: readonly string[]): void {
  const purpose = PURPOSES.find((p) => p === args[0]);
  if (!purpose) {
    console.error(`usage: tsx tooling/system-packages.ts <${PURPOSES.join('|')}>`);
    process.exit(2);
  }
  const needed = programsFor(purpose, process.env);
  const first = plan(
    purpose,
    needed.filter((p) => !installed(p)),
    { root: process.getuid?.() === 0, aptGet: onPath('apt-get') },
  );
  if (first.action !== 'install') return finish(first);
  console.error(first.notice);
  for (const apt of [
    ['update', '-q'],
    ['install', '-y', '-q', ...first.packages],
  ]) {
    const r = spawnSync('apt-get', apt, { stdio: 'inherit' });
    if (r.status !== 0)
      finish({
        action: 'fail',
        message: `pnpm ${purpose}: apt-get ${apt.join(' ')} failed (exit ${r.status ?? r.signal})`,
      });
  }
  finish(
    afterInstall(
      purpose,
      needed.filter((p) => !installed(p)),
    ),
  );
}

if (process.argv[1] === fileURLToPath(import.meta.url)) run(process.argv.slice(2));
