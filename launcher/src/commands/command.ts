import type { ParseArgsConfig } from 'node:util';
import type { Redis } from '@adnet/admin/redis';
import type { Services } from '@adnet/admin/services';
import type { Config } from '@adnet/schemas/config';
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
  /** The arguments after the command's name that are not options (only for a command that takes them). */
  positionals: string[];
  config: Config;
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
  /** Takes arguments that are not options (`backup <dir>`). */
  positionals?: boolean;
  /** Resolves with the exit code when it printed its own outcome (0 or nothing: success). */
  run(ctx: CommandContext): Promise<void | number>;
}

/** A failure the operator can act on: its message is printed as is, exit code 2. */
export class CommandError extends Error {}

/** The option's value through its schema, or a CommandError naming the option. */
export function parseOption<T>(schema: z.ZodType<T>, value: unknown, flag: string): T {
  const r = schema.safeParse(value);
  if (!r.success) throw new CommandError(`--${flag} ${r.error.issues[0]?.message ?? 'is invalid'}`);
  return r.data;
}
