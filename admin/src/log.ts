import { pino } from 'pino';
import type { Logger } from 'pino';

export type { Logger };

/** Field paths that may carry secrets; pino replaces them before a line is written. */
const REDACT = [
  'password',
  '*.password',
  'token',
  '*.token',
  'authorization',
  '*.authorization',
  '*.headers.authorization',
  'postback_secret',
  '*.postback_secret',
  'secret',
  '*.secret',
  'sig',
  '*.sig',
];

/** One JSON line per event on stdout. */
export function createLogger(level: string, name = 'adnet'): Logger {
  return pino({ name, level, redact: { paths: REDACT, censor: '[redacted]' }, base: { pid: process.pid } });
}
