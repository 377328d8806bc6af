import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { Content, ElementRule, Particle } from './vast-grammar.ts';
import { valueProblem } from './vast-grammar.ts';
import { VAST4_ROOT } from './vast-rules-4.ts';
import { VAST2_ROOT, VAST3_ROOT } from './vast-rules-legacy.ts';

/**
 * The project's own structural check of a VAST 2.0, 3.0 or 4.0 document (by its root's `version`), so that
 * every VAST answer the product writes is checked on any clone, with or without the IAB's schemas beside it
 * (which the repository may not carry). It checks what a player relies on: the root element, its namespace
 * (4.0's, none in 2.0 and 3.0) and version, the elements each Ad, InLine, Wrapper, Creative, Linear and
 * MediaFile must have, how often and in which order they come, their attributes, and the types of their
 * values. It follows the IAB schema of the version (vast4.xsd, vast3_draft.xsd, vast_2.0.1.xsd: the rules are
 * in vast-rules-4.ts and vast-rules-legacy.ts) for those elements and is stricter in one place: an Ad must
 * hold an InLine or a Wrapper (the schemas let an empty Ad through). Parts a player does not need to play our
 * ads (companions, non-linear ads, icons, verification, extensions) are checked for place and count, not
 * inside. Where the IAB schema is present the tests also validate against it (hostile.ts `vastVerdict`).
 */

export const VAST_NAMESPACE = 'http://www.iab.com/VAST';

/** The versions the check knows, by the major number of the root's `version`. */
export type CheckedVastVersion = '2.0' | '3.0' | '4.0';

/** What one document's check carries down the tree: the namespace its elements must be in (none before 4.0), and the problems found. */
interface Check {
  namespace: string | undefined;
  problems: string[];
}

// ---- the tree ----

/** One element as fast-xml-parser gives it with `preserveOrder`: its name, attributes, child elements and text. */
interface Node {
  name: string;
  attributes: Record<string, string>;
  children: Node[];
  text: string;
}

type Ordered = Record<string, unknown>[];

function toNodes(ordered: Ordered): { nodes: Node[]; text: string } {
  const nodes: Node[] = [];
  let text = '';
  for (const item of ordered) {
    for (const [key, value] of Object.entries(item)) {
      if (key === ':@') continue;
      if (key === '#text') text += String(value);
      else if (key.startsWith('?') || key.startsWith('!')) continue;
      else {
        const inner = toNodes(value as Ordered);
        nodes.push({
          name: key,
          attributes: (item[':@'] as Record<string, string> | undefined) ?? {},
          children: inner.nodes,
          text: inner.text,
        });
      }
    }
  }
  return { nodes, text };
}

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: false,
  processEntities: true,
  ignoreDeclaration: false,
});

function checkElement(node: Node, rule: ElementRule, path: string, check: Check): void {
  const problems = check.problems;
  for (const [name, value] of Object.entries(node.attributes)) {
    if (name === 'xmlns') {
      if (check.namespace === undefined) problems.push(`${path}: xmlns="${value}": this version has no namespace`);
      else if (value !== check.namespace) problems.push(`${path}: xmlns="${value}" leaves the VAST namespace`);
      continue;
    }
    // Namespace declarations and the schema-instance attributes are allowed anywhere.
    if (name.startsWith('xmlns:') || name.startsWith('xsi:')) continue;
    if (rule.attributes === 'any') continue;
    const declared = rule.attributes?.[name];
    if (!declared) problems.push(`${path}: attribute ${name} is not allowed`);
    else {
      const p = valueProblem(declared.type, value);
      if (p) problems.push(`${path}/@${name}: "${value}" ${p}`);
    }
  }
  if (rule.attributes !== 'any') {
    for (const [name, a] of Object.entries(rule.attributes ?? {})) {
      if (a.required && !(name in node.attributes)) problems.push(`${path}: attribute ${name} is required`);
    }
  }
  if (rule.anyContent) return;
  for (const child of node.children) {
    if (child.name.includes(':')) problems.push(`${path}/${child.name}: an element outside the VAST namespace`);
  }
  if (rule.text !== undefined) {
    if (node.children.length)
      problems.push(`${path}: holds elements (${node.children[0]?.name}) where only text belongs`);
    const p = valueProblem(rule.text, node.text);
    if (p) problems.push(`${path}: "${node.text.trim().slice(0, 80)}" ${p}`);
    return;
  }
  if (node.text.trim() !== '') problems.push(`${path}: holds text where only elements belong`);
  if (rule.content) checkContent(node, rule.content, path, check);
}

function checkCount(p: Particle, count: number, path: string, problems: string[]): void {
  if (count < p.min) problems.push(`${path}: ${p.name} is required${p.min > 1 ? ` ${p.min} times` : ''}`);
  if (count > p.max)
    problems.push(`${path}: ${p.name} may appear at most ${p.max} time${p.max === 1 ? '' : 's'}, found ${count}`);
}

function checkContent(node: Node, content: Content, path: string, check: Check): void {
  const problems = check.problems;
  const known = new Map(content.particles.map((p) => [p.name, p]));
  const children = node.children.filter((c) => !c.name.includes(':'));
  for (const c of children) if (!known.has(c.name)) problems.push(`${path}: ${c.name} is not allowed here`);
  const mine = children.filter((c) => known.has(c.name));
  if (content.kind === 'sequence') {
    // Each child must come at or after the place of the one before it; one out of place is named once, and
    // still counted, so a moved element is reported as moved rather than as missing.
    const place = new Map(content.particles.map((p, i) => [p.name, i]));
    const counts = content.particles.map(() => 0);
    let at = 0;
    let previous: string | undefined;
    let misplaced: string | undefined;
    for (const c of mine) {
      const i = place.get(c.name) as number;
      counts[i] = (counts[i] ?? 0) + 1;
      if (i < at) misplaced ??= `${path}: ${c.name} is out of order (it must come before ${previous})`;
      else {
        at = i;
        previous = c.name;
      }
    }
    content.particles.forEach((p, i) => checkCount(p, counts[i] ?? 0, path, problems));
    if (misplaced) problems.push(misplaced);
  } else if (content.kind === 'all') {
    for (const p of content.particles) checkCount(p, mine.filter((c) => c.name === p.name).length, path, problems);
  } else {
    const chosen = content.particles.find((p) => p.name === mine[0]?.name);
    if (!chosen) {
      if (!content.optional)
        problems.push(`${path}: one of ${content.particles.map((p) => p.name).join(', ')} is required`);
    } else {
      const others = mine.filter((c) => c.name !== chosen.name);
      if (others.length) problems.push(`${path}: ${chosen.name} and ${others[0]?.name} cannot both be here`);
      checkCount(chosen, mine.length - others.length, path, problems);
    }
  }
  const counters = new Map<string, number>();
  for (const c of mine) {
    const n = (counters.get(c.name) ?? 0) + 1;
    counters.set(c.name, n);
    const rule = known.get(c.name)?.rule;
    if (rule) checkElement(c, rule, `${path}/${c.name}[${n}]`, check);
  }
}

const ROOTS: Record<CheckedVastVersion, ElementRule> = { '2.0': VAST2_ROOT, '3.0': VAST3_ROOT, '4.0': VAST4_ROOT };

/** The version whose rules a document is checked by: its root's major version; 4.0 when it names none we know. */
export function vastVersionOf(version: string | undefined): CheckedVastVersion {
  const major = version?.trim().split('.')[0];
  return major === '2' ? '2.0' : major === '3' ? '3.0' : '4.0';
}

/**
 * The problems the check finds in a VAST document, each with the path of the element; empty when there is
 * none. The document is checked by the rules of its own version (2.0, 3.0 or 4.0).
 */
export function vastStructureProblems(xml: string): string[] {
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) return [`not well-formed XML: ${wellFormed.err.msg} (line ${wellFormed.err.line})`];
  const { nodes, text } = toNodes(parser.parse(xml) as Ordered);
  if (text.trim() !== '') return ['text outside the root element'];
  if (nodes.length !== 1) return [`one root element expected, found ${nodes.length}`];
  const root = nodes[0] as Node;
  if (root.name !== 'VAST') return [`the root element is ${root.name}, not VAST`];
  const raw = root.attributes.version;
  const version = vastVersionOf(raw);
  const check: Check = { namespace: version === '4.0' ? VAST_NAMESPACE : undefined, problems: [] };
  if (version === '4.0') {
    if (root.attributes.xmlns !== VAST_NAMESPACE)
      check.problems.push(`/VAST: the default namespace must be ${VAST_NAMESPACE}`);
    if (raw !== undefined && !/^4\.\d+(\.\d+)?$/.test(raw.trim()))
      check.problems.push(`/VAST/@version: "${raw}" is not a VAST 2, 3 or 4 version`);
  } else if (root.attributes.xmlns !== undefined) {
    // The 2.0 and 3.0 schemas have no target namespace: a document that declares 4.0's is read as 4.0 by
    // players and fails its own version's schema.
    check.problems.push(`/VAST: version ${version} takes no namespace, found xmlns="${root.attributes.xmlns}"`);
  }
  checkElement(root, ROOTS[version], '/VAST', check);
  return check.problems;
}
