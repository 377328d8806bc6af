// `pnpm adnet <command>`: operator tasks against the same Redis the product uses.
import { parseArgs } from 'node:util';
import { emailSchema, passwordSchema, roleSchema } from '@adnet/schemas/api';
import { z } from 'zod';
import { createAccount } from '@adnet/admin/accounts';
import { listDeadLetters, replayDeadLetter } from '@adnet/admin/dead-letters';
import { createLogger } from '@adnet/admin/log';
import { connectRedis } from '@adnet/admin/redis';
import { createServices } from '@adnet/admin/services';
import { backupCommand } from './backup.ts';
import { ensurePrivateRedis } from './private-redis.ts';
import { restoreCommand } from './restore.ts';
import { readConfigOrExit } from './read-config.ts';

const USAGE = `Usage:
  pnpm adnet user:create --role <advertiser|publisher|admin> --email <email> --password <password>
  pnpm adnet balance:credit --email <email> --cents <n> [--reason <text>]
  pnpm adnet dead-letters:list [--count <n>]
  pnpm adnet dead-letters:replay --id <dead letter id>
  pnpm adnet backup <dir>      a consistent copy of the product running on DATA_DIR (docs/backup.md)
  pnpm adnet restore <dir>     a backup into DATA_DIR, which must be new or empty

Uses REDIS_URL when set, otherwise the private Redis under DATA_DIR (default ./data).`;

const { positionals, values } = parseArgs({
  allowPositionals: true,
  options: {
    role: { type: 'string' },
    email: { type: 'string' },
    password: { type: 'string' },
    cents: { type: 'string' },
    reason: { type: 'string' },
    count: { type: 'string' },
    id: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  process.exit(2);
}

function parse<T>(schema: z.ZodType<T>, value: unknown, flag: string): T {
  const r = schema.safeParse(value);
  if (!r.success) fail(`--${flag} ${r.error.issues[0]?.message ?? 'is invalid'}`);
  return r.data;
}

const command = positionals[0];
if (values.help || !command) {
  process.stdout.write(USAGE + '\n');
  process.exit(command ? 0 : 2);
}
const COMMANDS = ['user:create', 'balance:credit', 'dead-letters:list', 'dead-letters:replay', 'backup', 'restore'];
if (!COMMANDS.includes(command)) fail(`Unknown command ${command}\n\n${USAGE}`);
// Neither starts a private Redis: a backup is of the running product, a restore is into an unused DATA_DIR.
if (command === 'backup') process.exit(await backupCommand(readConfigOrExit(), positionals[1]));
if (command === 'restore') process.exit(await restoreCommand(readConfigOrExit(), positionals[1]));

const config = readConfigOrExit();
const target = config.redisUrl ? { url: config.redisUrl, owned: false, stop: () => Promise.resolve() } : await ensurePrivateRedis(config.dataDir);
const redis = connectRedis(target.url, 'cli');
const svc = createServices(config, redis, createLogger('warn', 'adnet-cli'));

try {
  if (command === 'user:create') {
    const user = await createAccount(svc, {
      role: parse(roleSchema, values.role, 'role'),
      email: parse(emailSchema, values.email, 'email'),
      password: parse(passwordSchema, values.password, 'password'),
    });
    // The operator vouches for the address: no verification email for accounts made here.
    await svc.users.markEmailVerified(user.id);
    process.stdout.write(`created ${user.role} #${user.id} ${user.email}\n`);
  } else if (command === 'dead-letters:list') {
    const count = parse(z.coerce.number().int().min(1).max(100_000), values.count ?? '100', 'count');
    for (const l of await listDeadLetters(redis, { count })) {
      process.stdout.write(`${l.deadId}\tentry ${l.entryId}\tevents ${l.n ?? '?'}\t${l.bytes.length} bytes\t${l.error}\n`);
    }
  } else if (command === 'dead-letters:replay') {
    const id = parse(z.string().regex(/^\d+-\d+$/, 'is not a stream id'), values.id, 'id');
    if (!(await replayDeadLetter(redis, id))) fail(`No dead letter ${id}`);
    process.stdout.write(`dead letter ${id} added to events again\n`);
  } else {
    const email = parse(emailSchema, values.email, 'email');
    const cents = parse(z.coerce.number().int().min(1).max(10_000_000_000), values.cents, 'cents');
    const user = await svc.users.getByEmail(email);
    if (!user || user.role !== 'advertiser') fail(`No advertiser with email ${email}`);
    const result = await svc.ledger.credit(user.id, cents, values.reason ?? 'credit by operator (CLI)');
    process.stdout.write(`credited ${cents} cents to advertiser #${user.id}; balance ${result.balanceCents} cents\n`);
  }
} catch (e) {
  fail(`Error: ${(e as Error).message}`);
} finally {
  await redis.quit().catch(() => undefined);
  if (target.owned) await target.stop();
}
