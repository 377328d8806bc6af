import { connect } from 'node:net';

/**
 * One HTTP/1.1 exchange over a fresh socket, written byte for byte: the method, target and header
 * values go out as given (bad UTF-8, raw bytes, duplicate or contradictory headers), which fetch and
 * node:http refuse to send. The body is framed by Content-Length unless the caller frames it itself.
 */
export interface RawRequest {
  method: string;
  /** The request target as sent: a path with its query, not checked or encoded. */
  target: string | Buffer;
  headers: readonly (readonly [string, string | Buffer])[];
  body?: Buffer;
  /** `length` (default): a Content-Length header is added; `chunked`: the body is sent in chunks; `none`: as the headers say. */
  framing?: 'length' | 'chunked' | 'none';
}

export interface RawResponse {
  /** 0 when the server closed the connection without an answer. */
  status: number;
  /** Header names in lower case; repeated headers joined with ", ". */
  headers: Map<string, string>;
  body: Buffer;
  ms: number;
}

export class NoAnswerError extends Error {}

const CRLF = Buffer.from('\r\n');

function encodeRequest(host: string, r: RawRequest): Buffer {
  // Strings go out as UTF-8, as clients send non-ASCII text; exact bytes (bad UTF-8, Latin-1) come as Buffers.
  const bytes = (v: string | Buffer) => (Buffer.isBuffer(v) ? v : Buffer.from(v, 'utf8'));
  const parts: Buffer[] = [Buffer.from(`${r.method} `, 'latin1'), bytes(r.target), Buffer.from(' HTTP/1.1\r\n')];
  const line = (name: string, value: string | Buffer) =>
    parts.push(Buffer.from(`${name}: `, 'latin1'), bytes(value), CRLF);
  line('host', host);
  for (const [name, value] of r.headers) line(name, value);
  const framing = r.framing ?? 'length';
  const body = r.body ?? Buffer.alloc(0);
  if (framing === 'length' && (body.length > 0 || r.method === 'POST' || r.method === 'PATCH' || r.method === 'PUT'))
    line('content-length', String(body.length));
  if (framing === 'chunked') line('transfer-encoding', 'chunked');
  line('connection', 'close');
  parts.push(CRLF);
  if (framing === 'chunked') {
    // Uneven chunks, as a streaming client sends them.
    for (let at = 0; at < body.length; at += 7_919) {
      const chunk = body.subarray(at, at + 7_919);
      parts.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, CRLF);
    }
    parts.push(Buffer.from('0\r\n\r\n'));
  } else parts.push(body);
  return Buffer.concat(parts);
}

function dechunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = buf.indexOf(CRLF, at);
    if (eol < 0) break;
    const size = parseInt(buf.subarray(at, eol).toString('latin1').split(';')[0] ?? '', 16);
    if (!Number.isFinite(size) || size === 0) break;
    out.push(buf.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
  return Buffer.concat(out);
}

/** The final answer in what the server sent before closing (interim 1xx answers skipped). */
export function parseResponse(raw: Buffer, ms: number): RawResponse {
  let at = 0;
  for (;;) {
    const end = raw.indexOf('\r\n\r\n', at);
    if (end < 0) return { status: 0, headers: new Map(), body: raw.subarray(at), ms };
    const [statusLine = '', ...lines] = raw.subarray(at, end).toString('latin1').split('\r\n');
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? 0);
    if (status >= 100 && status < 200) {
      at = end + 4;
      continue;
    }
    const headers = new Map<string, string>();
    for (const l of lines) {
      const colon = l.indexOf(':');
      if (colon <= 0) continue;
      const name = l.slice(0, colon).trim().toLowerCase();
      const value = l.slice(colon + 1).trim();
      headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
    }
    const rest = raw.subarray(end + 4);
    const length = Number(headers.get('content-length') ?? NaN);
    const body = /chunked/i.test(headers.get('transfer-encoding') ?? '')
      ? dechunk(rest)
      : Number.isFinite(length)
        ? rest.subarray(0, length)
        : rest;
    return { status, headers, body, ms };
  }
}

/** Sends `r` to `base` and reads until the server closes; rejects with NoAnswerError past `timeoutMs`. */
export function rawRequest(base: string, r: RawRequest, timeoutMs = 10_000): Promise<RawResponse> {
  const { hostname, port, host } = new URL(base);
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = connect(Number(port), hostname);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new NoAnswerError(`no answer within ${timeoutMs} ms (${Buffer.concat(chunks).length} bytes received)`));
    }, timeoutMs);
    // Written, not ended: a half-closed socket reads as a client that went away to some servers.
    socket.on('connect', () => socket.write(encodeRequest(host, r)));
    socket.on('data', (c: Buffer) => chunks.push(c));
    // A server may answer and close before the whole body was written (a refused upload): what it sent counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(parseResponse(Buffer.concat(chunks), performance.now() - started));
    });
  });
}
