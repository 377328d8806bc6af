/**
 * Every error code the product answers with, and its HTTP status: the admin's
 * API and the engine's endpoints share this table, so a code means the same
 * status everywhere. Bodies are `{ "error": "<message>", "code": "<code>" }`.
 */
export const ERROR_CODES = {
  validation_failed: 400,
  bad_request: 400,
  unauthorized: 401,
  invalid_credentials: 401,
  token_expired: 401,
  payment_required: 402,
  forbidden: 403,
  registration_disabled: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  email_taken: 409,
  illegal_transition: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  headers_too_large: 431,
  unprocessable: 422,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
} as const satisfies Record<string, number>;
export type ErrorCode = keyof typeof ERROR_CODES;

export interface ErrorBody {
  error: string;
  code: ErrorCode;
}
