import { backup } from './backup.ts';
import { balanceCredit } from './balance-credit.ts';
import type { Command } from './command.ts';
import { deadLettersList } from './dead-letters-list.ts';
import { deadLettersReplay } from './dead-letters-replay.ts';
import { demo } from './demo.ts';
import { restore } from './restore.ts';
import { userCreate } from './user-create.ts';

/** Every `pnpm adnet` command, in the order the usage lists them. A new command: its module, then a line here. */
export const COMMANDS: readonly Command[] = [
  demo,
  userCreate,
  balanceCredit,
  deadLettersList,
  deadLettersReplay,
  backup,
  restore,
];
