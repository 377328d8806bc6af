// The admin's logger is the one both services share: every secret is scrubbed before a line is written.
export { createLogger } from '@adnet/runtime/log';
export type { Logger } from '@adnet/runtime/log';
