import type { ParseArgsConfig } from 'node:util';
import type { Redis } from '@adnet/admin/redis';
import type { Services } from '@adnet/admin/services';
import type { z } from 'zod';
import type { ProductTarget } from '../product-target.ts';

/** A product the command acts on, connected (launcher/src/product-target.ts chose it). */
export interface Connected {
  svc: Services;
  redis: Redis;
  target: ProductTarget;
}

export interface CommandContext {
  values: Record<string, string | boolean | undefined>;
  /** Finds the product (or refuses: no product runs on DATA_DIR), says which on stderr, and connects. */
  connect: () => Promise<Connected>;
  out: (line: string) => void;
}

/** One `pnpm adnet <name>` command: its options for `parseArgs` and what it does. */
export interface Command {
  name: string;
  /** Its usage line(s), after `pnpm adnet `. */
  usage: string;
  options: NonNullable<ParseArgsConfig['options']>;
  run(ctx: CommandContext): Promise<void>;
}

/** A failure the operator can act on: its message is printed as is, exit code 2. */
export class CommandError extends Error {}

/** The option's value through its schema, or a CommandError naming the option. */
export function parseOption<T>(schema: z.ZodType<T>, value: unknown, flag: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new CommandError(`--${flag} ${r.error.issues[0]?.message ?? 'is invalid'}`);
  return r.data;
}
