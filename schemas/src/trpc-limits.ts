/**
 * The most calls one tRPC batch request may carry: the admin answers a larger batch with 400 before
 * running any of it, and the cabinet's client splits its batches at the same size. A leaf module (no zod),
 * so the cabinet's bundle can import it.
 */
export const TRPC_MAX_BATCH = 50;
