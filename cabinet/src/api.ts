// The cabinet talks to the admin only through the typed tRPC client; the router is imported
// as a type, so no server code reaches the browser bundle.
import {
  TRPCClientError,
  createTRPCClient,
  httpBatchLink,
  httpLink,
  isNonJsonSerializable,
  splitLink,
} from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@adnet/admin/router';
import { TRPC_MAX_BATCH } from '@adnet/schemas/trpc-limits';

export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;
export type Role = Outputs['auth']['token']['user']['role'];

/**
 * What the UI shows of the signed-in account. The token itself lives only in the admin's HttpOnly
 * session cookie (auth.session sets it): no script on this origin can read it, ours included.
 */
export interface Session {
  role: Role;
  email: string;
}

const ROLES: readonly string[] = ['advertiser', 'publisher', 'admin'] satisfies Role[];
/** Known for this page's lifetime: undefined until asked, null when signed out. */
let known: Session | null | undefined;

/** The signed-in account, asked of the server once per page load (the cookie decides), or null. */
export async function loadSession(): Promise<Session | null> {
  if (known !== undefined) return known;
  let found: Session | null;
  try {
    const me = await api.auth.me.query();
    found = ROLES.includes(me.role) ? { role: me.role as Role, email: me.email } : null;
  } catch (err) {
    // Signed out (401) is an answer; anything else (network, 5xx) is asked again on the next page.
    if (problem(err).status !== 401) throw err;
    found = null;
  }
  // A sign-in or sign-out while the question was out is newer than its answer.
  if (known === undefined) known = found;
  return known;
}

/** What this page already knows, without asking: undefined when it has not asked yet. */
export function knownSession(): Session | null | undefined {
  return known;
}

/** After sign-in (the cookie is set) or sign-out (the server cleared it). */
export function saveSession(s: Session | null): void {
  known = s;
}

const url = `${location.origin}/trpc`;
// Sent on every call: the admin refuses cookie-authenticated requests without it (docs/security.md).
const headers = { 'x-adnet-cabinet': '1' };

export const api = createTRPCClient<AppRouter>({
  links: [
    // Uploads (FormData) go as multipart; everything else is batched JSON.
    splitLink({
      condition: (op) => isNonJsonSerializable(op.input),
      true: httpLink({ url, headers }),
      false: httpBatchLink({ url, headers, maxItems: TRPC_MAX_BATCH }),
    }),
  ],
});

export interface ApiProblem {
  /** Per-field messages, exactly as the API words them. */
  fields: Record<string, string>;
  message: string;
  code: string;
  status: number;
}

/** The API's error facts (status, machine code, field map) out of whatever was thrown. */
export function problem(err: unknown): ApiProblem {
  if (err instanceof TRPCClientError) {
    const e = err as TRPCClientError<AppRouter>;
    const data = e.data;
    return {
      fields: data?.fields ?? {},
      message: e.message,
      code: data?.appCode ?? 'error',
      status: data?.httpStatus ?? 0,
    };
  }
  return { fields: {}, message: err instanceof Error ? err.message : String(err), code: 'network', status: 0 };
}
