import { ERROR_CODES } from '@adnet/schemas/errors';
import { NO_CONTENT_CSP } from '@adnet/schemas/http-headers';
import type { RawResponse } from './raw-http.ts';

/**
 * What every answer to a hostile request must be, in the product's own terms (admin/docs/api.md
 * "Errors", docs/openrtb.md, schemas/src/errors.ts): never a 5xx but a 503 that says when to come
 * back; every error a JSON body of the documented shape with the status its code has in the shared
 * table; the safety headers on everything; redirects only to http(s).
 */
export interface CheckOptions {
  /** The request was malformed below HTTP's semantics (framing, request line): the server's parser may refuse it without a route. */
  protocolLevel?: boolean;
  /** A tRPC answer: its error envelope instead of the REST body. */
  trpc?: boolean;
  /** HEAD: the answer has headers only. */
  head?: boolean;
  /** The request line and headers passed 16 KiB: an HTTP parser may refuse them (414, 431, or closing). */
  oversizedHead?: boolean;
}

const isStringMap = (v: unknown): v is Record<string, string> =>
  typeof v === 'object' &&
  v !== null &&
  !Array.isArray(v) &&
  Object.keys(v).length > 0 &&
  Object.values(v).every((x) => typeof x === 'string');

const codeStatus = (code: unknown): number | undefined =>
  typeof code === 'string' && code in ERROR_CODES ? ERROR_CODES[code as keyof typeof ERROR_CODES] : undefined;

/** The REST error bodies: 400 `{errors}` naming fields (or `{error, code}` with a 400 code), 422 `{ok: false, error}`, else `{error, code}`. */
function restShapeProblem(status: number, body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return 'error body is not a JSON object';
  const b = body as Record<string, unknown>;
  if (status === 400 && 'errors' in b)
    return isStringMap(b.errors) ? undefined : 'errors is not a non-empty map of field to message';
  if (status === 422 && b.ok === false) return typeof b.error === 'string' ? undefined : '422 without an error message';
  if (typeof b.error !== 'string' || b.error === '') return 'no error message';
  if (codeStatus(b.code) !== status)
    return `code ${JSON.stringify(b.code)} is not one the shared table gives status ${status}`;
  return undefined;
}

/** tRPC's envelope: `{error: {message, code, data: {httpStatus, appCode}}}`, one per call of a batch. */
function trpcShapeProblem(status: number, body: unknown): string | undefined {
  const one = (item: unknown, expected?: number): string | undefined => {
    const e = (item as { error?: { message?: unknown; data?: { httpStatus?: unknown; appCode?: unknown } } } | null)
      ?.error;
    if (!e) return (item as { result?: unknown } | null)?.result !== undefined ? undefined : 'neither result nor error';
    if (typeof e.message !== 'string') return 'tRPC error without a message';
    const http = e.data?.httpStatus;
    if (typeof http !== 'number' || (expected !== undefined && http !== expected))
      return `tRPC httpStatus ${String(http)} for HTTP ${status}`;
    if (http >= 500 && http !== 503) return `tRPC call failed with ${http}`;
    if (codeStatus(e.data?.appCode) === undefined && e.data?.appCode !== 'validation_failed')
      return `unknown appCode ${String(e.data?.appCode)}`;
    return undefined;
  };
  if (Array.isArray(body)) return body.map((item) => one(item)).find(Boolean);
  // An answer from before tRPC's handler (a refused body) has the REST shape.
  if (typeof body === 'object' && body !== null && 'code' in body) return restShapeProblem(status, body);
  return one(body, status);
}

/**
 * The policy docs/security.md promises per kind of answer: a page of ours (the cabinet's, the local
 * checkout's) has its own strict policy that frames nowhere and runs no inline or foreign script;
 * everything else (JSON, XML, pixels, redirects, scripts, errors, empty answers) the one that loads
 * nothing and sandboxes.
 */
function cspProblem(contentType: string | undefined, csp: string | undefined): string | undefined {
  if (csp === undefined) return 'no Content-Security-Policy';
  if (!/^text\/html\b/i.test(contentType ?? ''))
    return csp === NO_CONTENT_CSP
      ? undefined
      : `Content-Security-Policy ${csp} on ${contentType ?? 'an untyped answer'}`;
  const directives = new Map(
    csp
      .split(';')
      .map((d) => d.trim().split(/\s+/))
      .map(([name = '', ...values]) => [name.toLowerCase(), values] as const),
  );
  const scripts = directives.get('script-src') ?? directives.get('default-src') ?? ['*'];
  if (!directives.get('frame-ancestors')?.includes("'none'")) return `page policy ${csp} lets other sites frame it`;
  if (scripts.some((v) => v !== "'self'" && v !== "'none'"))
    return `page policy ${csp} runs scripts from ${scripts.join(' ')}`;
  return undefined;
}

/** Everything wrong with one answer; empty when it is as the product promises. */
export function answerProblems(res: RawResponse, opts: CheckOptions = {}): string[] {
  const problems: string[] = [];
  const h = res.headers;
  if (res.status === 0)
    return opts.protocolLevel || opts.oversizedHead ? [] : ['the connection closed without an answer'];
  // Every answer the product writes carries a request id: one without came from an HTTP parser, before any
  // route. Parsers refuse a request line and headers past their size limits and, for requests malformed
  // on purpose, whatever they cannot parse.
  if (!h.has('x-request-id')) {
    if (opts.oversizedHead && (res.status === 414 || res.status === 431)) return [];
    if (opts.protocolLevel && res.status >= 400 && res.status < 500) return [];
    return [`${res.status} answered by no route of ours (no x-request-id)`];
  }
  if (res.status >= 500 && !(res.status === 503 && h.has('retry-after'))) problems.push(`server error ${res.status}`);
  if (h.get('x-content-type-options') !== 'nosniff') problems.push('no X-Content-Type-Options: nosniff');
  const csp = cspProblem(h.get('content-type'), h.get('content-security-policy'));
  if (csp) problems.push(csp);
  if ((res.status === 429 || res.status === 503) && !/^\d+$/.test(h.get('retry-after') ?? ''))
    problems.push(`${res.status} without Retry-After seconds`);
  if (res.status === 405 && !h.has('allow')) problems.push('405 without Allow');
  const location = h.get('location');
  if (location !== undefined && !/^(https?:\/\/|\/(?!\/))/i.test(location))
    problems.push(`redirect to ${location.slice(0, 80)}`);
  if (res.status >= 400 && !opts.head) {
    let body: unknown;
    if (!/json/i.test(h.get('content-type') ?? ''))
      problems.push(`error answered as ${h.get('content-type') ?? 'no content type'}`);
    else {
      try {
        body = JSON.parse(res.body.toString('utf8'));
      } catch {
        problems.push('error body is not JSON');
      }
      const shape =
        body === undefined
          ? undefined
          : opts.trpc
            ? trpcShapeProblem(res.status, body)
            : restShapeProblem(res.status, body);
      if (shape) problems.push(shape);
    }
  }
  return problems;
}
