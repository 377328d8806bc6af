import { readFile } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { ERROR_CODES } from '@adnet/schemas/errors';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.json': 'application/json; charset=utf-8',
};

/**
 * The bearer token lives in the page, so nothing but the cabinet's own files may run there.
 * Creative images and videos may come from anywhere; inline styles are the DOM helpers' own.
 */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  'img-src * data: blob:',
  'media-src *',
  "connect-src 'self'",
  "frame-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'self'",
  "form-action 'self'",
  "object-src 'none'",
].join('; ');

/**
 * The built single-page cabinet under /cabinet. A path without an extension is a page of the
 * app, so it gets index.html (deep links work on reload); Vite names assets by content hash,
 * so they can be cached forever while index.html is always revalidated.
 */
export async function serveCabinet(dir: string | undefined, path: string, res: ServerResponse): Promise<void> {
  // Errors in the product's one shape (schemas/src/errors.ts), as every other path answers them.
  const fail = (code: 'not_found' | 'unavailable', error: string) => {
    const retry: Record<string, string> = code === 'unavailable' ? { 'retry-after': '60' } : {};
    res.writeHead(ERROR_CODES[code], { 'content-type': 'application/json; charset=utf-8', ...retry });
    res.end(JSON.stringify({ error, code }));
  };
  if (!dir) return fail('not_found', 'The cabinet is not built in this process');
  let rel: string;
  try {
    rel = decodeURIComponent(path.slice('/cabinet'.length)).replace(/^\/+/, '');
  } catch {
    return fail('not_found', 'Not found');
  }
  const ext = extname(rel);
  const file = ext ? normalize(join(dir, rel)) : join(dir, 'index.html');
  if (!file.startsWith(dir + sep)) return fail('not_found', 'Not found');
  let data: Buffer;
  try {
    data = await readFile(file);
  } catch {
    // Without its page the cabinet waits for a build (`pnpm start` builds it; a failed build is retried at the next start).
    return ext ? fail('not_found', 'Not found') : fail('unavailable', 'The cabinet is not built yet');
  }
  res.writeHead(200, {
    'content-type': TYPES[ext || '.html'] ?? 'application/octet-stream',
    'content-length': data.length,
    'cache-control': rel.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    'x-content-type-options': 'nosniff',
    ...(ext ? {} : { 'content-security-policy': CSP, 'referrer-policy': 'same-origin' }),
  });
  res.end(data);
}
