import { z } from 'zod';
import { bool, port } from './fields.ts';

/** `host=ip,*.test=ip` as a map from host to address. */
const hostAnswers = (pairs: string): ReadonlyMap<string, string> =>
  new Map(
    pairs
      .split(',')
      .filter(Boolean)
      .map((pair) => pair.split('=') as [string, string]),
  );

/** Publishers' site verification. */
export const verifySlice = z
  .object({
    /** Site verification: time limit per request. */
    VERIFY_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000),
    /** Tests and local development only: let site verification reach loopback addresses. */
    VERIFY_ALLOW_LOOPBACK: bool.default(false),
    /** Tests and local development only: `host=ip,*.test=ip` answers used instead of DNS. */
    VERIFY_STATIC_HOSTS: z
      .string()
      .regex(/^([*a-z0-9.-]+=[0-9a-f:.]+)(,[*a-z0-9.-]+=[0-9a-f:.]+)*$/i, 'must be host=ip pairs separated by commas')
      .optional(),
    /** Tests and local development only: the port site verification calls for `http://` URLs. Unset: 80. */
    VERIFY_HTTP_PORT: port.optional(),
    /** Tests and local development only: the port site verification calls for `https://` URLs. Unset: 443. */
    VERIFY_HTTPS_PORT: port.optional(),
  })
  .transform((e) => ({
    timeoutMs: e.VERIFY_TIMEOUT_MS,
    allowLoopback: e.VERIFY_ALLOW_LOOPBACK,
    staticHosts: hostAnswers(e.VERIFY_STATIC_HOSTS ?? ''),
    httpPort: e.VERIFY_HTTP_PORT,
    httpsPort: e.VERIFY_HTTPS_PORT,
  }));
export type VerifyConfig = z.output<typeof verifySlice>;
