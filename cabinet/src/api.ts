// The cabinet talks to the admin only through the typed tRPC client; the router is imported
// as a type, so no server code reaches the browser bundle.
import { TRPCClientError, createTRPCClient, httpBatchLink, httpLink, isNonJsonSerializable, splitLink } from '@trpc/client';
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@adnet/admin/router';

export type Inputs = inferRouterInputs<AppRouter>;
export type Outputs = inferRouterOutputs<AppRouter>;
export type Role = Outputs['auth']['token']['user']['role'];

export interface Session {
  token: string;
  role: Role;
  email: string;
}

const KEY = 'adnet.session';

export function loadSession(): Session | null {
  try {
    const raw = localStorage.getItem(KEY);
    return raw ? (JSON.parse(raw) as Session) : null;
  } catch {
    return null;
  }
}

export function saveSession(s: Session | null): void {
  if (s) localStorage.setItem(KEY, JSON.stringify(s));
  else localStorage.removeItem(KEY);
}

const url = `${location.origin}/trpc`;
const headers = () => {
  const s = loadSession();
  return s ? { authorization: `Bearer ${s.token}` } : {};
};

export const api = createTRPCClient<AppRouter>({
  links: [
    // Uploads (FormData) go as multipart; everything else is batched JSON.
    splitLink({ condition: (op) => isNonJsonSerializable(op.input), true: httpLink({ url, headers }), false: httpBatchLink({ url, headers }) }),
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
    return { fields: data?.fields ?? {}, message: e.message, code: data?.appCode ?? 'error', status: data?.httpStatus ?? 0 };
  }
  return { fields: {}, message: err instanceof Error ? err.message : String(err), code: 'network', status: 0 };
}
