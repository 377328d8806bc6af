import { replayDeadLetter } from '@adnet/admin/dead-letters';
import { z } from 'zod';
import { CommandError, parseOption } from './command.ts';
import type { Command } from './command.ts';

export const deadLettersReplay: Command = {
  name: 'dead-letters:replay',
  usage: 'dead-letters:replay --id <dead letter id>',
  options: { id: { type: 'string' } },
  async run({ values, connect, out }) {
    const id = parseOption(z.string().regex(/^\d+-\d+$/, 'is not a stream id'), values.id, 'id');
    const { redis } = await connect();
    if (!(await replayDeadLetter(redis, id))) throw new CommandError(`No dead letter ${id}`);
    out(`dead letter ${id} added to events again`);
  },
};
