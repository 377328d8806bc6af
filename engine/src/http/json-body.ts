import { json } from './adapt.ts';
import type { EngineReply, EngineRequest } from './adapt.ts';

/** The body as `schema` says, or the 400 naming each bad field (the body may be text/plain, sparing a preflight). */
export interface Parser<T> {
  safeParse(
    v: unknown,
  ): { success: true; data: T } | { success: false; error: { issues: { path: PropertyKey[]; message: string }[] } };
}
export function bodyAs<T>(
  req: EngineRequest,
  schema: Parser<T>,
  headers: Record<string, string>,
): { ok: true; data: T } | { ok: false; reply: EngineReply } {
  let body: unknown;
  try {
    body = JSON.parse(req.body.toString('utf8'));
  } catch {
    return { ok: false, reply: json(400, { errors: { body: 'must be valid JSON' } }, headers) };
  }
  const parsed = schema.safeParse(body);
  if (parsed.success) return { ok: true, data: parsed.data };
  const errors: Record<string, string> = {};
  for (const i of parsed.error.issues) errors[i.path.map(String).join('.') || 'body'] ??= i.message;
  return { ok: false, reply: json(400, { errors }, headers) };
}
