import { pino, stdSerializers } from 'pino';
import type { DestinationStream, Logger, LoggerOptions } from 'pino';

export type { Logger };

const CENSOR = '[redacted]';

/**
 * Keys whose values are secrets wherever they sit, at any depth: passwords and their hashes, tokens,
 * secrets, signatures, credentials, cookies. `args` is what ioredis attaches to a failed command, whose
 * arguments may be any stored value. Numbers and booleans under such keys (token counts) are kept.
 */
const SECRET_KEY =
  /pass(?:word)?|^pw$|token|secret|^sig$|signature|authori[sz]ation|cookie|api[-_]?key|credential|hash$|^args$/i;

/**
 * Secrets in free text (error messages, stacks, URLs): a bearer token (`<id>|<opaque>`), an
 * Authorization value, a secret-looking query parameter, credentials in a URL, a password hash, and
 * long hex strings (postback secrets, HMAC signatures). A long hex run followed by a file extension is
 * a content-addressed file name and stays.
 */
const SECRET_TEXT: readonly [RegExp, string][] = [
  [/\b\d{1,15}\|[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g, CENSOR],
  [/\b(Bearer|Basic)\s+[^\s"',;]+/gi, `$1 ${CENSOR}`],
  [
    /([?&;](?:secret|sig|signature|token|access_token|password|pass|pwd|key|api_key|apikey|auth)=)[^&#\s"']*/gi,
    `$1${CENSOR}`,
  ],
  [/(\b[a-z][a-z0-9+.-]*:\/\/[^/\s:@"']*:)[^@\s/"']+@/gi, `$1${CENSOR}@`],
  [/scrypt\$[^\s"',]+/g, CENSOR],
  [/\b[0-9a-f]{40,}\b(?!\.[a-z0-9])/gi, CENSOR],
];

export function scrubText(text: string): string {
  let out = text;
  for (const [re, replacement] of SECRET_TEXT) out = out.replace(re, replacement);
  return out;
}

const MAX_DEPTH = 8;

/** A copy of `value` with every secret replaced; Errors become pino's plain error shape first. */
export function scrub(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH || seen.has(value)) return '[…]';
  seen.add(value);
  if (value instanceof Error) return scrub(stdSerializers.err(value), depth + 1, seen);
  if (Buffer.isBuffer(value) || ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  if (Array.isArray(value)) return value.map((v) => scrub(v, depth + 1, seen));
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const plain = typeof v === 'number' || typeof v === 'boolean' || v === null || v === undefined;
    out[key] = SECRET_KEY.test(key) && !plain ? CENSOR : scrub(v, depth + 1, seen);
  }
  return out;
}

/**
 * One JSON line per event (stdout unless a destination is given). Every field, message and error
 * passes through `scrub` before it is written, so a secret never reaches the log, whichever field,
 * depth or error text carries it.
 */
export function createLogger(level: string, name = 'adnet', destination?: DestinationStream): Logger {
  const options: LoggerOptions = {
    name,
    level,
    base: { pid: process.pid },
    formatters: { log: (obj) => scrub(obj) as Record<string, unknown> },
    serializers: { err: (err: unknown) => scrub(err) },
    hooks: {
      logMethod(args, method) {
        // The message and its format arguments; an Error logged alone lends its message, which pino
        // would otherwise write unscrubbed.
        const [first, second] = args as unknown[];
        const withMessage: unknown[] =
          first instanceof Error && typeof second !== 'string' ? [first, first.message, ...args.slice(1)] : args;
        const cleaned = withMessage.map((a) => (typeof a === 'string' ? scrubText(a) : a)) as Parameters<typeof method>;
        method.apply(this, cleaned);
      },
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
