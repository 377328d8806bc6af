import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { ERROR_CODES } from '@adnet/schemas/errors';
import type { ErrorCode } from '@adnet/schemas/errors';
import { SAFE_RESPONSE_HEADERS } from '@adnet/schemas/http-headers';

const ANSWERS: Record<string, [ErrorCode, string]> = {
  HPE_HEADER_OVERFLOW: ['headers_too_large', 'The request line and headers are larger than this server takes'],
  ERR_HTTP_REQUEST_TIMEOUT: ['request_timeout', 'The request did not arrive in time'],
};
const MALFORMED: [ErrorCode, string] = ['bad_request', 'Malformed HTTP request'];

/**
 * Node's `clientError`: a request its HTTP parser refused (bad framing, an unknown method, headers
 * past the limit, too slow), which no route ever sees. Answered in the product's error shape with
 * the headers every answer carries, instead of Node's bare status line; the connection then closes.
 */
export function answerClientError(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const [code, error] = ANSWERS[err.code ?? ''] ?? MALFORMED;
  const status = ERROR_CODES[code];
  const body = JSON.stringify({ error, code });
  const headers = {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(body)),
    ...SAFE_RESPONSE_HEADERS,
    'x-request-id': randomUUID(),
    connection: 'close',
  };
  const head = Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`);
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n${head.join('')}\r\n${body}`);
}
