import { listDeadLetters } from '@adnet/admin/dead-letters';
import { z } from 'zod';
import { parseOption } from './command.ts';
import type { Command } from './command.ts';

export const deadLettersList: Command = {
  name: 'dead-letters:list',
  usage: 'dead-letters:list [--count <n>]',
  options: { count: { type: 'string' } },
  async run({ values, connect, out }) {
    const count = parseOption(z.coerce.number().int().min(1).max(100_000), values.count ?? '100', 'count');
    const { redis } = await connect();
    for (const l of await listDeadLetters(redis, { count })) {
      out(`${l.deadId}\tentry ${l.entryId}\tevents ${l.n ?? '?'}\t${l.bytes.length} bytes\t${l.error}`);
    }
  },
};
