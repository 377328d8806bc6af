import { ConfigError, loadConfig } from '@adnet/schemas/config';
import type { Config } from '@adnet/schemas/config';

/** The validated config, or exit 2 with a message naming each wrong variable. */
export function readConfigOrExit(): Config {
  try {
    return loadConfig(process.env);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(2);
    }
    throw e;
  }
}

/** The configuration again with some variables set otherwise (a running product's base URLs, say). */
export function configWith(overrides: Record<string, string>): Config {
  return loadConfig({ ...process.env, ...overrides });
}
