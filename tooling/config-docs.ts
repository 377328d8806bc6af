// `tsx tooling/config-docs.ts [--check]`: docs/configuration.md is generated from the configuration's slices,
// so the page cannot drift from what loadConfig accepts. Descriptions are the JSDoc in the source text (zod keeps
// no comments at runtime); types and defaults come from the schema objects themselves.
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { ADMIN_SLICES, CONFIG_SLICES, ENGINE_SLICES, envSchema } from '../schemas/src/config.ts';
import type { SliceName } from '../schemas/src/config.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SOURCE = 'schemas/src/config';
const PAGE = 'docs/configuration.md';

const docText = (node: ts.Node): string | undefined => {
  const doc = ts.getJSDocCommentsAndTags(node).filter(ts.isJSDoc).at(-1);
  return ts.getTextOfJSDocComment(doc?.comment)?.replace(/\s+/g, ' ').trim() || undefined;
};
const isEnvName = (name: string): boolean => /^[A-Z][A-Z0-9_]*$/.test(name);

/**
 * The JSDoc text, whitespace collapsed, of each environment variable (an UPPER_CASE property of a `z.object({...})`)
 * and of each exported slice (`export const serverSlice = ...`, under the key `slice:server`).
 */
export function envDocs(source: string): Map<string, string> {
  const file = ts.createSourceFile('slice.ts', source, ts.ScriptTarget.Latest, true);
  const docs = new Map<string, string>();
  const visit = (node: ts.Node): void => {
    if (ts.isVariableStatement(node)) {
      const name = node.declarationList.declarations[0]?.name;
      const text = docText(node);
      if (name && ts.isIdentifier(name) && name.text.endsWith('Slice') && text)
        docs.set(`slice:${name.text.slice(0, -'Slice'.length)}`, text);
    }
    if (ts.isPropertyAssignment(node) && ts.isIdentifier(node.name) && isEnvName(node.name.text)) {
      const text = docText(node);
      if (text) docs.set(node.name.text, text);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return docs;
}

/** The parts of zod's JSON Schema output this page renders. */
export interface JsonSchema {
  type?: string;
  enum?: readonly unknown[];
  const?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  pattern?: string;
  format?: string;
  anyOf?: readonly JsonSchema[];
  default?: unknown;
}

const code = (v: unknown): string => `\`${String(v)}\``;

export function typeOf(s: JsonSchema): string {
  if (s.anyOf) return s.anyOf.map(typeOf).join(' or ');
  if (s.const !== undefined) return code(s.const);
  if (s.enum) return `one of ${s.enum.map(code).join(', ')}`;
  if (s.type === 'integer' || s.type === 'number') {
    const range = s.minimum !== undefined && s.maximum !== undefined ? ` ${s.minimum} to ${s.maximum}` : '';
    return `${s.type}${range}`;
  }
  if (s.type === 'string' && s.format === 'uri') return 'URL';
  if (s.type === 'string' && s.pattern) return `string matching ${code(s.pattern)}`;
  // A minimum of 1 says nothing here: an empty value counts as unset.
  if (s.type === 'string' && (s.minLength ?? 0) > 1) return `string of at least ${s.minLength} characters`;
  return s.type ?? 'any';
}

export function defaultOf(s: JsonSchema): string {
  if (s.default === undefined) return 'unset';
  return s.default === '' ? 'empty' : code(s.default);
}

/** What a boolean variable accepts, read from the parser's own error for a value it refuses. */
function booleanSpellings(): string | undefined {
  const sample = Object.values(envSchema.shape).find((field) => field.safeParse('true').data === true);
  const refused = sample?.safeParse('\u0000').error?.issues[0];
  if (!sample || !refused || !('values' in refused)) return undefined;
  const words = refused.values.map(String);
  const [yes, no] = [
    words.filter((w) => sample.safeParse(w).data === true),
    words.filter((w) => sample.safeParse(w).data === false),
  ];
  return `Booleans are ${yes.map(code).join(', ')} or ${no.map(code).join(', ')} (any case).`;
}

const cell = (text: string): string => text.replace(/\|/g, '\\|');

/** Who is handed a slice: the launcher reads them all, each service only its own. */
function readers(slice: SliceName): string {
  const services = [
    (ENGINE_SLICES as readonly SliceName[]).includes(slice) && 'the engines',
    (ADMIN_SLICES as readonly SliceName[]).includes(slice) && 'the admin',
  ].filter(Boolean);
  return services.length ? `${services.join(' and ')} (and the launcher)` : 'the launcher only';
}

export function renderPage(docs: ReadonlyMap<string, string>): string {
  const properties = (
    envSchema.toJSONSchema({ io: 'output', unrepresentable: 'any' }) as { properties: Record<string, JsonSchema> }
  ).properties;
  const undocumented = Object.keys(envSchema.shape).filter((name) => !docs.has(name));
  if (undocumented.length > 0)
    throw new Error(
      `${SOURCE}/: add a JSDoc comment to ${undocumented.join(', ')} (it becomes the description in ${PAGE})`,
    );
  const sections = Object.entries(CONFIG_SLICES).flatMap(([slice, schema]) => [
    `## \`${slice}\``,
    '',
    `${docs.get(`slice:${slice}`) ?? ''} Read by ${readers(slice as SliceName)}; declared in \`${SOURCE}/${slice}.ts\`.`,
    '',
    '| Variable | Type | Default | Description |',
    '|---|---|---|---|',
    ...Object.keys(schema.in.shape).map((name) => {
      const s = properties[name] ?? {};
      return `| \`${name}\` | ${cell(typeOf(s))} | ${cell(defaultOf(s))} | ${cell(docs.get(name) ?? '')} |`;
    }),
    '',
  ]);
  return [
    `<!-- Generated by \`pnpm docs:config\` (tooling/config-docs.ts) from the slices in ${SOURCE}/; edit the JSDoc there, not this page. -->`,
    '',
    '# Configuration',
    '',
    'Environment variables, validated at start; a wrong value stops the process with a message naming the variable.',
    ['Empty values count as unset.', booleanSpellings()].filter(Boolean).join(' '),
    '',
    'The variables come in slices, one per concern: each slice is parsed into the settings of that concern, and each',
    'service is handed only the slices it reads (`ENGINE_SLICES`, `ADMIN_SLICES` in `schemas/src/config.ts`).',
    '',
    ...sections,
  ].join('\n');
}

/** The docs of every slice file. */
function sliceSources(): Map<string, string> {
  const docs = new Map<string, string>();
  for (const file of readdirSync(`${ROOT}${SOURCE}`)
    .filter((f) => f.endsWith('.ts'))
    .sort())
    for (const [name, text] of envDocs(readFileSync(`${ROOT}${SOURCE}/${file}`, 'utf8'))) docs.set(name, text);
  return docs;
}

function run(args: readonly string[]): void {
  const page = renderPage(sliceSources());
  if (!args.includes('--check')) return writeFileSync(`${ROOT}${PAGE}`, page);
  let current = '';
  try {
    current = readFileSync(`${ROOT}${PAGE}`, 'utf8');
  } catch {
    // A missing page is reported like a stale one.
  }
  if (current === page) return;
  console.error(
    `${PAGE} is not what tooling/config-docs.ts generates from ${SOURCE}/.\nRun \`pnpm docs:config\` and commit the result.`,
  );
  process.exit(1);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) run(process.argv.slice(2));
