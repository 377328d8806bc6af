// `pnpm adnet <command>`: operator tasks on a running product (or the Redis REDIS_URL names). Each command is
// a module in ./commands/; ./product-target.ts finds the product the command acts on.
import { parseArgs } from 'node:util';
import { createLogger } from '@adnet/admin/log';
import { connectRedis } from '@adnet/admin/redis';
import type { Redis } from '@adnet/admin/redis';
import { ADMIN_SLICES, pickSlices } from '@adnet/schemas/config';
import { createServices } from '@adnet/admin/services';
import { CommandError } from './commands/command.ts';
import type { Connected } from './commands/command.ts';
import { COMMANDS } from './commands/index.ts';
import { NoProductError, productTarget } from './product-target.ts';
import { readConfigOrExit } from './read-config.ts';

const USAGE = `Usage:
${COMMANDS.map((c) => `  pnpm adnet ${c.usage}`).join('\n')}

Acts on the product running with DATA_DIR (default ./data), found by DATA_DIR/run.json, which \`pnpm start\`
writes; with REDIS_URL set, on that Redis. Where no product runs, a command changes nothing and says what to run.`;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

const argv = process.argv.slice(2);
const name = argv[0];
if (!name || name === '--help' || name === '-h') {
  process.stdout.write(USAGE + '\n');
  process.exit(name ? 0 : 2);
}
const command = COMMANDS.find((c) => c.name === name);
if (!command) fail(`Unknown command ${name}\n\n${USAGE}`);

let values: Record<string, string | boolean | undefined>;
let positionals: string[];
try {
  ({ values, positionals } = parseArgs({
    args: argv.slice(1),
    options: { ...command.options, help: { type: 'boolean', short: 'h' } },
    strict: true,
    allowPositionals: command.positionals ?? false,
  }));
} catch (e) {
  fail(`${(e as Error).message}\n\nUsage: pnpm adnet ${command.usage}`);
}
if (values.help) {
  process.stdout.write(`Usage: pnpm adnet ${command.usage}\n`);
  process.exit(0);
}

const config = readConfigOrExit();
let redis: Redis | undefined;
async function connect(): Promise<Connected> {
  const target = await productTarget(config, argv);
  process.stderr.write(`adnet ${name}: acting on ${target.description}\n`);
  redis = connectRedis(target.redisUrl, 'cli');
  return {
    svc: createServices(pickSlices(target.config, ADMIN_SLICES), redis, createLogger('warn', 'adnet-cli')),
    redis,
    target,
  };
}

try {
  const code = await command.run({
    values,
    positionals,
    config,
    connect,
    out: (line) => process.stdout.write(`${line}\n`),
  });
  if (code) process.exitCode = code;
} catch (e) {
  if (e instanceof NoProductError || e instanceof CommandError) fail(e.message);
  fail(`Error: ${(e as Error).message}`);
} finally {
  await redis?.quit().catch(() => undefined);
}
