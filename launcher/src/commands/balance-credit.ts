import { emailSchema } from '@adnet/schemas/api';
import { z } from 'zod';
import { CommandError, parseOption } from './command.ts';
import type { Command } from './command.ts';

export const balanceCredit: Command = {
  name: 'balance:credit',
  usage: 'balance:credit --email <email> --cents <n> [--reason <text>]',
  options: { email: { type: 'string' }, cents: { type: 'string' }, reason: { type: 'string' } },
  async run({ values, connect, out }) {
    const email = parseOption(emailSchema, values.email, 'email');
    const cents = parseOption(z.coerce.number().int().min(1).max(10_000_000_000), values.cents, 'cents');
    const reason = parseOption(z.string().max(200).optional(), values.reason, 'reason');
    const { svc } = await connect();
    const user = await svc.users.getByEmail(email);
    if (!user || user.role !== 'advertiser') throw new CommandError(`No advertiser with email ${email}`);
    const result = await svc.ledger.credit(user.id, cents, reason ?? 'credit by operator (CLI)');
    out(`credited ${cents} cents to advertiser #${user.id}; balance ${result.balanceCents} cents`);
  },
};
