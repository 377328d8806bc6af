import { backupCommand } from '../backup.ts';
import type { Command } from './command.ts';

/** Backs up the product running on DATA_DIR (docs/backup.md); it finds the product itself and starts no Redis. */
export const backup: Command = {
  name: 'backup',
  usage: 'backup <dir>      a consistent copy of the product running on DATA_DIR (docs/backup.md)',
  options: {},
  positionals: true,
  run: ({ config, positionals }) => backupCommand(config, positionals[0]),
};
