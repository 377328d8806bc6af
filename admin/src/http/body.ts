import type { ByteBudget, ByteLease } from '@adnet/runtime/byte-budget';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { AppError } from '../errors.ts';

// Each request's share of the process's body budget (BODY_BYTES_IN_FLIGHT_MAX), kept beside the request so
// that readers need nothing but the request; given back when the answer is done or the client went away.
const leases = new WeakMap<IncomingMessage, ByteLease>();

export function leaseBodyBudget(budget: ByteBudget, req: IncomingMessage, res: ServerResponse): void {
  const lease = budget.lease();
  leases.set(req, lease);
  res.once('close', () => lease.release());
}

const tooLarge = (limit: number) => new AppError('payload_too_large', `Body is larger than ${limit} bytes`);
const busy = () =>
  new AppError('unavailable', 'Too many request bodies in progress; try again shortly', { retryAfterSeconds: 1 });

/** Holds `bytes` of the request's body in the budget, or refuses (503) before they are buffered. */
function hold(req: IncomingMessage, bytes: number): void {
  const lease = leases.get(req);
  if (lease && !lease.holdUpTo(bytes)) throw busy();
}

/** The declared Content-Length, or undefined for a chunked body. */
const declaredLength = (req: IncomingMessage): number | undefined => {
  const n = Number(req.headers['content-length'] ?? NaN);
  return Number.isFinite(n) ? n : undefined;
};

/**
 * For a reader that is not ours (tRPC's adapter, which enforces `limit` per request itself): holds
 * what the body can grow to before the reader starts. Node's parser ends a body at its
 * Content-Length; a chunked one is held at `limit`.
 */
export function admitBody(req: IncomingMessage, limit: number): void {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  hold(req, declared ?? limit);
}

/** Reads the whole body within the budget, refusing (413) as soon as it passes `limit` bytes or (503) the budget. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = declaredLength(req);
  if (declared !== undefined && declared > limit) throw tooLarge(limit);
  if (declared) hold(req, declared);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw tooLarge(limit);
    hold(req, size);
    chunks.push(buf);
  }
  return Buffer.concat(chunks);
}

export function parseJsonObject(buf: Buffer): Record<string, unknown> {
  if (buf.length === 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('utf8'));
  } catch {
    throw new AppError('validation_failed', 'Body is not valid JSON', { fields: { body: 'must be valid JSON' } });
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AppError('validation_failed', 'Body must be a JSON object', {
      fields: { body: 'must be a JSON object' },
    });
  }
  return value as Record<string, unknown>;
}

export async function parseMultipart(buf: Buffer, contentType: string): Promise<FormData> {
  try {
    // undici's spec-compliant multipart parser, the same one the tRPC door uses.
    return await new Request('http://local/', {
      method: 'POST',
      headers: { 'content-type': contentType },
      body: buf,
    }).formData();
  } catch {
    throw new AppError('validation_failed', 'Malformed multipart body', {
      fields: { body: 'must be a well-formed multipart/form-data body' },
    });
  }
}
