import { createTRPCClient, httpBatchLink, httpLink, isNonJsonSerializable, splitLink } from '@trpc/client';
import type { AppRouter } from '../../src/trpc/router.ts';
import { TRPC_MAX_BATCH } from '@adnet/schemas/trpc-limits';

/** The typed client as the README shows it: FormData (uploads) over httpLink, the rest batched. */
export function trpcClient(base: string, token?: string) {
  const headers = () => (token ? { authorization: `Bearer ${token}` } : {});
  return createTRPCClient<AppRouter>({
    links: [
      splitLink({
        condition: (op) => isNonJsonSerializable(op.input),
        true: httpLink({ url: `${base}/trpc`, headers }),
        false: httpBatchLink({ url: `${base}/trpc`, headers, maxItems: TRPC_MAX_BATCH }),
      }),
    ],
  });
}
