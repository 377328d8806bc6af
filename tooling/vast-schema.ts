// `tsx tooling/vast-schema.ts`: the test command runs this before the suite. The VAST tests validate our answers
// against the IAB VAST 4.0 schema, which the repository cannot carry (the IAB's licence grants no redistribution),
// so a clone that does not sit beside `shared/` must be told where to get it before 1 400 tests run, not after.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const VAST_SCHEMA_SOURCE = 'the IAB Tech Lab repository https://github.com/InteractiveAdvertisingBureau/vast (file vast4.xsd)';

/** `IAB_VAST_XSD` when set (empty counts as unset), otherwise the copy in `../shared/schemas/vast/` beside the repository. */
export function vastSchemaPath(env: Readonly<Record<string, string | undefined>>, root = ROOT): string {
  return env.IAB_VAST_XSD ? resolve(env.IAB_VAST_XSD) : join(root, '..', 'shared', 'schemas', 'vast', 'vast4.xsd');
}

/** What to tell the user when the schema is not at `path`; undefined when it is there. */
export function vastSchemaProblem(path: string, exists: (p: string) => boolean = existsSync): string | undefined {
  if (exists(path)) return undefined;
  return [
    `pnpm test: the IAB VAST 4.0 schema is not at ${path}.`,
    "The VAST tests validate the engine's answers against it; the repository does not carry it (the IAB's licence grants no redistribution).",
    `Download vast4.xsd from ${VAST_SCHEMA_SOURCE} and set IAB_VAST_XSD=/path/to/vast4.xsd,`,
    'or clone the repository beside a shared/ folder that holds schemas/vast/vast4.xsd.',
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const problem = vastSchemaProblem(vastSchemaPath(process.env));
  if (problem) {
    console.error(problem);
    process.exit(1);
  }
}
