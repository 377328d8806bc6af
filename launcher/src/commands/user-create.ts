import { emailSchema, passwordSchema, roleSchema } from '@adnet/schemas/api';
import type { Role } from '@adnet/schemas/api';
import { createAccount } from '@adnet/admin/accounts';
import type { Services } from '@adnet/admin/services';
import { parseOption } from './command.ts';
import type { Command } from './command.ts';

/** An account the operator vouches for: no verification email for accounts made from the CLI. */
export async function createVerifiedAccount(svc: Services, input: { role: Role; email: string; password: string }) {
  const user = await createAccount(svc, input);
  await svc.users.markEmailVerified(user.id);
  return user;
}

export const userCreate: Command = {
  name: 'user:create',
  usage: 'user:create --role <advertiser|publisher|admin> --email <email> --password <password>',
  options: { role: { type: 'string' }, email: { type: 'string' }, password: { type: 'string' } },
  async run({ values, connect, out }) {
    const input = {
      role: parseOption(roleSchema, values.role, 'role'),
      email: parseOption(emailSchema, values.email, 'email'),
      password: parseOption(passwordSchema, values.password, 'password'),
    };
    const { svc } = await connect();
    const user = await createVerifiedAccount(svc, input);
    out(`created ${user.role} #${user.id} ${user.email}`);
  },
};
