import { TRPCError } from '@trpc/server';
import type { TRPC_ERROR_CODE_KEY } from '@trpc/server';
import { ERROR_CODES } from '@adnet/schemas/errors';
import type { ErrorCode } from '@adnet/schemas/errors';
import { ZodError } from 'zod';

export { ERROR_CODES };
export type { ErrorCode };

/** The tRPC code of each HTTP status the shared table uses, so tRPC answers with the same status as REST. */
const TRPC_OF_STATUS = {
  400: 'BAD_REQUEST',
  401: 'UNAUTHORIZED',
  402: 'PAYMENT_REQUIRED',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_SUPPORTED',
  408: 'TIMEOUT',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  // tRPC has no 431: only the HTTP layer answers it, for headers that never reach a procedure (http/client-error.ts).
  431: 'BAD_REQUEST',
  422: 'UNPROCESSABLE_CONTENT',
  429: 'TOO_MANY_REQUESTS',
  500: 'INTERNAL_SERVER_ERROR',
  502: 'BAD_GATEWAY',
  503: 'SERVICE_UNAVAILABLE',
} as const satisfies Record<(typeof ERROR_CODES)[ErrorCode], TRPC_ERROR_CODE_KEY>;

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
    super({ code: TRPC_OF_STATUS[ERROR_CODES[code]], message, cause: opts.cause });
    this.appCode = code;
    this.status = ERROR_CODES[code];
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
  // A procedure's output failing its schema is a bug of ours (tRPC wraps it as an internal error), not a 400.
  if (err instanceof TRPCError && err.code === 'INTERNAL_SERVER_ERROR') return undefined;
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
    if (code) return { status: ERROR_CODES[code], body: { error: err.message, code }, headers: {} };
  }
  return { status: 500, body: { error: 'Internal server error', code: 'internal' }, headers: {} };
}
