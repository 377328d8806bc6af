import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { iabVastSchema, iabVastSchemaOf } from '../../tooling/vast-schema.ts';
import type { SchemaVersion } from '../../tooling/vast-schema.ts';
import { vastStructureProblems, vastVersionOf } from './vast-structure.ts';

/**
 * The worst text a creative can carry into our outputs: markup and CDATA breakouts, script schemes,
 * header splitting, the line separators JavaScript and XML treat apart, characters XML cannot hold,
 * and sheer length. Each test puts them wherever a value reaches a document.
 */
export const HOSTILE_TEXT = [
  ']]><script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  "'><svg onload=alert(1)>",
  'javascript:alert(1)',
  'x\r\nSet-Cookie: pwned=1\r\n\r\n<script>alert(1)</script>',
  'a\u2028b\u2029c</script><script>alert(1)</script>',
  'nul\u0000 bell\u0007 fffe\uFFFE lone\uD800 surrogate',
  '&amp; &lt;script&gt; <!-- --> <?xml?> <![CDATA[',
  `${'A'.repeat(50_000)}]]>${'<'.repeat(1000)}`,
] as const;

/** URLs that passed no check (kept before the API refused them): none may become a link, a source or a header. */
export const HOSTILE_URLS = [
  'javascript:alert(document.domain)',
  'https://cdn.example.com/v.mp4]]><script>alert(1)</script>',
  'https://shop.example.com/?c={click_id}\r\nSet-Cookie: pwned=1',
  'https://shop.example.com/"><img src=x onerror=alert(1)>',
  'data:text/html,<script>alert(1)</script>',
  'https://shop.example.com/\u2028x',
] as const;

/** The IAB VAST 4.0 schema when it is beside the repository or named by `IAB_VAST_XSD`; undefined on a bare clone. */
export const IAB_VAST_XSD = iabVastSchema(process.env);

/** The IAB schema of each VAST version we write, where it is at hand (2.0's and 3.0's beside 4.0's). */
export const IAB_VAST_SCHEMAS: Readonly<Record<SchemaVersion, string | undefined>> = {
  '2.0': iabVastSchemaOf('2.0', process.env),
  '3.0': iabVastSchemaOf('3.0', process.env),
  '4.0': IAB_VAST_XSD,
};

/** The version a VAST document says it is (its root's `version`), as the schema and the structural check read it. */
export const documentVastVersion = (xml: string): SchemaVersion =>
  vastVersionOf(/<VAST\b[^>]*?\sversion\s*=\s*["']([^"']*)["']/.exec(xml)?.[1]);

function withFile<T>(name: string, text: string, run: (path: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'hostile-'));
  try {
    const path = join(dir, name);
    writeFileSync(path, text);
    return run(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * xmllint's verdict against the IAB schema of the document's version (its root's `version`: 2.x, 3.x, else
 * 4.0); undefined where that schema is not at hand.
 */
export function schemaVerdict(xml: string): { valid: boolean; output: string } | undefined {
  const schema = IAB_VAST_SCHEMAS[documentVastVersion(xml)];
  if (!schema) return undefined;
  return withFile('vast.xml', xml, (path) => {
    const out = spawnSync('xmllint', ['--noout', '--schema', schema, path], { encoding: 'utf8' });
    return { valid: out.status === 0 && out.stderr.includes('validates'), output: out.stderr };
  });
}

/**
 * A VAST document's verdict: the project's structural check (testing/src/vast-structure.ts) always, and
 * xmllint against the IAB schema of its version as well where that schema is at hand. `checked` says which ran.
 */
export function vastVerdict(xml: string): {
  valid: boolean;
  output: string;
  checked: 'structure' | 'structure+schema';
} {
  const problems = vastStructureProblems(xml);
  const schema = schemaVerdict(xml);
  if (!schema) return { valid: problems.length === 0, output: problems.join('\n'), checked: 'structure' };
  return {
    valid: problems.length === 0 && schema.valid,
    output: [...problems, schema.output].join('\n'),
    checked: 'structure+schema',
  };
}

/**
 * What in an HTML fragment could run: script elements, event-handler attributes, and links or
 * sources with a scheme other than http(s). xmllint parses it as a browser would, leniently.
 */
export function activeHtml(html: string): string[] {
  return withFile('adm.html', `<html><body>${html}</body></html>`, (path) => {
    const xpath =
      "//script | //@*[starts-with(translate(name(),'ON','on'),'on')] | //@href[not(starts-with(.,'http'))] | //@src[not(starts-with(.,'http')) and . != '']";
    const out = spawnSync('xmllint', ['--html', '--noout', '--xpath', xpath, path], { encoding: 'utf8' });
    // xmllint exits 10 with "XPath set is empty" when nothing matched.
    if (out.status === 10 || out.stderr.includes('XPath set is empty')) return [];
    return [out.stdout || out.stderr];
  });
}

/** An XPath 1.0 expression (`string(...)`, `count(...)`) over an XML document; throws if it is not well-formed. */
export function xpath(xml: string, expr: string): string {
  return withFile('doc.xml', xml, (path) => {
    const out = spawnSync('xmllint', ['--xpath', expr, path], { encoding: 'utf8' });
    if (out.status !== 0) throw new Error(`xmllint ${out.status}: ${out.stderr}`);
    return out.stdout;
  });
}

/** The text of the first element named `local` (any namespace). */
export const xmlText = (xml: string, local: string): string =>
  xpath(xml, `string(//*[local-name()='${local}'])`).replace(/\n$/, '');
/** Elements a VAST document must never hold, whatever a creative carried. */
export const scriptElements = (xml: string): number =>
  Number(xpath(xml, "count(//*[local-name()='script' or local-name()='img' or local-name()='svg'])"));
