import { restoreCommand } from '../restore.ts';
import type { Command } from './command.ts';

/** Restores a backup into DATA_DIR, which must be new or empty: the one command that needs no running product. */
export const restore: Command = {
  name: 'restore',
  usage: 'restore <dir>     a backup into DATA_DIR, which must be new or empty',
  options: {},
  positionals: true,
  run: ({ config, positionals }) => restoreCommand(config, positionals[0]),
};
