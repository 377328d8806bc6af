// `tsx tooling/vast-schema.ts`: the test command runs this before the suite. Every VAST test checks our answers
// with the project's own structural check (testing/src/vast-structure.ts) and, where the IAB VAST schema of
// the document's version is at hand (vast4.xsd, and beside it vast3_draft.xsd and vast_2.0.1.xsd), also
// validates them against it. The repository cannot carry the schema (the IAB's licence
// grants no redistribution), so this says once which of the two a run does, and stops only when the user named a
// schema file that is not there.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

export const VAST_SCHEMA_SOURCE =
  'the IAB Tech Lab repository https://github.com/InteractiveAdvertisingBureau/vast (file vast4.xsd)';

type Env = Readonly<Record<string, string | undefined>>;

/** `IAB_VAST_XSD` when set (empty counts as unset), otherwise the copy in `../shared/schemas/vast/` beside the repository. */
export function vastSchemaPath(env: Env, root = ROOT): string {
  return env.IAB_VAST_XSD ? resolve(env.IAB_VAST_XSD) : join(root, '..', 'shared', 'schemas', 'vast', 'vast4.xsd');
}

/** The schema's path when the file is there, else undefined: the tests then check structure only. */
export function iabVastSchema(env: Env, root = ROOT, exists: (p: string) => boolean = existsSync): string | undefined {
  const path = vastSchemaPath(env, root);
  return exists(path) ? path : undefined;
}

/** The IAB schema file of each VAST version we write; 2.0's and 3.0's are looked for beside the 4.0 one. */
export const VAST_SCHEMA_FILES = { '2.0': 'vast_2.0.1.xsd', '3.0': 'vast3_draft.xsd', '4.0': 'vast4.xsd' } as const;
export type SchemaVersion = keyof typeof VAST_SCHEMA_FILES;

/**
 * The schema of `version` when the file is there, else undefined (the tests then check that version's structure
 * only): 4.0's as `iabVastSchema` finds it, 2.0's and 3.0's in the same folder.
 */
export function iabVastSchemaOf(
  version: SchemaVersion,
  env: Env,
  o: { root?: string; exists?: (p: string) => boolean } = {},
): string | undefined {
  const four = vastSchemaPath(env, o.root ?? ROOT);
  const path = version === '4.0' ? four : join(dirname(four), VAST_SCHEMA_FILES[version]);
  return (o.exists ?? existsSync)(path) ? path : undefined;
}

/**
 * What to tell the user before the suite: an error when `IAB_VAST_XSD` names a file that is not there (they
 * asked for the schema), a note when no schema is beside the repository, nothing when it is there.
 */
export function vastSchemaNotice(
  env: Env,
  root = ROOT,
  exists: (p: string) => boolean = existsSync,
): { error: boolean; message: string } | undefined {
  const path = vastSchemaPath(env, root);
  if (exists(path)) return undefined;
  if (env.IAB_VAST_XSD) {
    return {
      error: true,
      message: `pnpm test: IAB_VAST_XSD names ${path}, which is not there. Point it at vast4.xsd from ${VAST_SCHEMA_SOURCE}, or unset it.`,
    };
  }
  return {
    error: false,
    message: [
      "pnpm test: VAST answers are checked by the project's structural check only (testing/src/vast-structure.ts).",
      `To validate them against the IAB VAST 4.0 schema as well, download vast4.xsd from ${VAST_SCHEMA_SOURCE} and set IAB_VAST_XSD=/path/to/vast4.xsd`,
      '(with vast3_draft.xsd and vast_2.0.1.xsd from the same repository beside it, the VAST 3.0 and 2.0 answers are validated too).',
    ].join('\n'),
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const notice = vastSchemaNotice(process.env);
  if (notice) {
    process.stderr.write(`${notice.message}\n`);
    if (notice.error) process.exit(1);
  }
}
