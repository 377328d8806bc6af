import type { Role } from '@adnet/schemas/api';
import { newSecret } from '../auth/token-format.ts';
import { AppError } from '../errors.ts';
import type { Services } from '../services.ts';
import type { UserRecord } from '../storage/users.ts';

/** Shared by self sign-up and the operator CLI. Input is already validated. */
export async function createAccount(
  svc: Services,
  input: { email: string; password: string; role: Role },
): Promise<UserRecord> {
  const user = await svc.users.create({
    email: input.email,
    role: input.role,
    passwordHash: await svc.passwords.hash(input.password),
    postbackSecret: newSecret(),
  });
  if (!user) throw new AppError('email_taken', 'This email is already registered');
  svc.log.info({ event: 'user.created', userId: user.id, role: user.role }, 'user created');
  return user;
}
