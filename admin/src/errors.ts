import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { ZodError } from 'zod';

/**
 * Every error the API can answer, by machine code. The HTTP status and the
 * tRPC code come from this one table, so both doors agree.
 */
export const ERROR_CODES = {
  validation_failed: { status: 400, trpc: 'BAD_REQUEST' },
  bad_request: { status: 400, trpc: 'BAD_REQUEST' },
  unauthorized: { status: 401, trpc: 'UNAUTHORIZED' },
  invalid_credentials: { status: 401, trpc: 'UNAUTHORIZED' },
  token_expired: { status: 401, trpc: 'UNAUTHORIZED' },
  payment_required: { status: 402, trpc: 'PAYMENT_REQUIRED' },
  forbidden: { status: 403, trpc: 'FORBIDDEN' },
  registration_disabled: { status: 403, trpc: 'FORBIDDEN' },
  not_found: { status: 404, trpc: 'NOT_FOUND' },
  method_not_allowed: { status: 405, trpc: 'METHOD_NOT_SUPPORTED' },
  conflict: { status: 409, trpc: 'CONFLICT' },
  email_taken: { status: 409, trpc: 'CONFLICT' },
  illegal_transition: { status: 409, trpc: 'CONFLICT' },
  payload_too_large: { status: 413, trpc: 'PAYLOAD_TOO_LARGE' },
  unsupported_media_type: { status: 415, trpc: 'UNSUPPORTED_MEDIA_TYPE' },
  unprocessable: { status: 422, trpc: 'UNPROCESSABLE_CONTENT' },
  rate_limited: { status: 429, trpc: 'TOO_MANY_REQUESTS' },
  internal: { status: 500, trpc: 'INTERNAL_SERVER_ERROR' },
  bad_gateway: { status: 502, trpc: 'BAD_GATEWAY' },
  unavailable: { status: 503, trpc: 'SERVICE_UNAVAILABLE' },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;
export type ErrorCode = keyof typeof ERROR_CODES;

const TRPC_TO_APP: Partial<Record<TRPC_ERROR_CODE_KEY, ErrorCode>> = {
  BAD_REQUEST: 'bad_request',
  PARSE_ERROR: 'bad_request',
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  NOT_FOUND: 'not_found',
  METHOD_NOT_SUPPORTED: 'method_not_allowed',
  PAYLOAD_TOO_LARGE: 'payload_too_large',
  UNSUPPORTED_MEDIA_TYPE: 'unsupported_media_type',
  TOO_MANY_REQUESTS: 'rate_limited',
};

export interface AppErrorOptions {
  /** Field-level messages; makes this a 400 `{errors}` answer. */
  fields?: Record<string, string>;
  retryAfterSeconds?: number;
  cause?: unknown;
}

/** Extends TRPCError so tRPC passes it through untouched and picks the right status. */
export class AppError extends TRPCError {
  readonly appCode: ErrorCode;
  readonly status: number;
  readonly fields: Record<string, string> | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(code: ErrorCode, message: string, opts: AppErrorOptions = {}) {
    super({ code: ERROR_CODES[code].trpc, message, cause: opts.cause });
    this.appCode = code;
    this.status = ERROR_CODES[code].status;
    this.fields = opts.fields;
    this.retryAfterSeconds = opts.retryAfterSeconds;
  }
}

export const fieldErrors = (fields: Record<string, string>): AppError =>
  new AppError('validation_failed', 'Validation failed', { fields });
export const notFound = (what: string): AppError => new AppError('not_found', `${what} not found`);
export const forbidden = (message = 'You do not have access to this resource'): AppError =>
  new AppError('forbidden', message);

/** zod issues as `{ "<field.path>": "<message>" }`, the first message per field. */
export function zodFieldErrors(err: ZodError): Record<string, string> {
  const out: Record<string, string> = {};
  for (const issue of err.issues) {
    const key = issue.path.length ? issue.path.map(String).join('.') : 'body';
    out[key] ??= issue.message;
  }
  return out;
}

export interface HttpError {
  status: number;
  body: { errors: Record<string, string> } | { error: string; code: string } | { ok: false; error: string };
  headers: Record<string, string>;
}

function findZodError(err: unknown): ZodError | undefined {
  for (let e = err, depth = 0; e instanceof Error && depth < 4; e = e.cause, depth++) {
    if (e instanceof ZodError) return e;
  }
  return undefined;
}

/** The one mapping from anything thrown to the spec's error bodies. */
export function toHttp(err: unknown): HttpError {
  const zod = findZodError(err);
  if (zod) return { status: 400, body: { errors: zodFieldErrors(zod) }, headers: {} };
  if (err instanceof AppError) {
    const headers: Record<string, string> = {};
    if (err.retryAfterSeconds !== undefined) headers['retry-after'] = String(err.retryAfterSeconds);
    if (err.fields) return { status: 400, body: { errors: err.fields }, headers };
    // The spec's shape for a failed site verification.
    if (err.appCode === 'unprocessable') return { status: 422, body: { ok: false, error: err.message }, headers };
    return { status: err.status, body: { error: err.message, code: err.appCode }, headers };
  }
  if (err instanceof TRPCError) {
    const code = TRPC_TO_APP[err.code];
    if (code) return { status: ERROR_CODES[code].status, body: { error: err.message, code }, headers: {} };
  }
  return { status: 500, body: { error: 'Internal server error', code: 'internal' }, headers: {} };
}
