import type { IncomingMessage } from 'node:http';
import { AppError } from '../errors.ts';

/** Reads the whole body, refusing (413) as soon as it passes `limit` bytes. */
export async function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length'] ?? NaN);
  if (declared > limit) throw new AppError('payload_too_large', `Body is larger than ${limit} bytes`);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > limit) throw new AppError('payload_too_large', `Body is larger than ${limit} bytes`);
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
    throw new AppError('validation_failed', 'Body must be a JSON object', { fields: { body: 'must be a JSON object' } });
  }
  return value as Record<string, unknown>;
}

export async function parseMultipart(buf: Buffer, contentType: string): Promise<FormData> {
  try {
    // undici's spec-compliant multipart parser, the same one the tRPC door uses.
    return await new Request('http://local/', { method: 'POST', headers: { 'content-type': contentType }, body: buf }).formData();
  } catch {
    throw new AppError('validation_failed', 'Malformed multipart body', { fields: { body: 'must be a well-formed multipart/form-data body' } });
  }
}
