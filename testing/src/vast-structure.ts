import { XMLParser, XMLValidator } from 'fast-xml-parser';

/**
 * The project's own structural check of a VAST 4.0 document, so that every VAST answer the product writes
 * is checked on any clone, with or without the IAB's schema beside it (which the repository may not
 * carry). It checks what a player relies on: the root element, its namespace and version, the elements
 * each Ad, InLine, Wrapper, Creative, Linear and MediaFile must have, how often and in which order they
 * come, their attributes, and the types of their values. It follows the IAB VAST 4.0 schema for those
 * elements and is stricter in one place: an Ad must hold an InLine or a Wrapper (the schema lets an empty
 * Ad through). Parts a player does not need to play our ads (companions, non-linear ads, icons,
 * verification, extensions) are checked for place and count, not inside. Where the IAB schema is present
 * the tests also validate against it (hostile.ts `vastVerdict`).
 */

export const VAST_NAMESPACE = 'http://www.iab.com/VAST';

type ValueType =
  | 'string'
  | 'uri'
  | 'reference'
  | 'integer'
  | 'boolean'
  | 'decimal'
  | 'time'
  | 'offset'
  | 'currency'
  | readonly string[];

interface ElementRule {
  /** Declared attributes; 'any' leaves them unchecked. */
  attributes?: Record<string, { type: ValueType; required?: true }> | 'any';
  /** Simple content: the text's type. */
  text?: ValueType;
  /** Element content. */
  content?: Content;
  /** Content not checked (the schema's extension points, and parts we do not write). */
  anyContent?: true;
}

interface Particle {
  name: string;
  min: number;
  max: number;
  rule: ElementRule;
}

/** `sequence`: in this order; `all`: any order; `one-of`: children of exactly one particle (none when `optional`). */
type Content =
  | { kind: 'sequence'; particles: Particle[] }
  | { kind: 'all'; particles: Particle[] }
  | { kind: 'one-of'; particles: Particle[]; optional: boolean };

const MANY = Number.POSITIVE_INFINITY;
const one = (name: string, rule: ElementRule): Particle => ({ name, min: 1, max: 1, rule });
const optional = (name: string, rule: ElementRule): Particle => ({ name, min: 0, max: 1, rule });
const any = (name: string, rule: ElementRule, min = 0): Particle => ({ name, min, max: MANY, rule });

const unchecked: ElementRule = { attributes: 'any', anyContent: true };
const uri = (attributes: ElementRule['attributes'] = {}): ElementRule => ({ attributes, text: 'uri' });
const str: ElementRule = { attributes: {}, text: 'string' };
const withId = { id: { type: 'string' as const } };

const TRACKING_EVENTS = [
  'mute',
  'unmute',
  'pause',
  'resume',
  'rewind',
  'skip',
  'playerExpand',
  'playerCollapse',
  'start',
  'firstQuartile',
  'midpoint',
  'thirdQuartile',
  'complete',
  'acceptInvitationLinear',
  'timeSpentViewing',
  'progress',
  'creativeView',
  'acceptInvitation',
  'adExpand',
  'adCollapse',
  'minimize',
  'close',
  'overlayViewDuration',
  'otherAdInteraction',
] as const;

const trackingEvents: ElementRule = {
  attributes: {},
  content: {
    kind: 'sequence',
    particles: [any('Tracking', uri({ event: { type: TRACKING_EVENTS, required: true }, offset: { type: 'offset' } }))],
  },
};

/** What InLine and Wrapper share, in the schema's order. */
const adBase: Particle[] = [
  one('AdSystem', { attributes: { version: { type: 'string' } }, text: 'string' }),
  any('Error', uri()),
  optional('Extensions', { attributes: {}, content: { kind: 'sequence', particles: [any('Extension', unchecked)] } }),
  any('Impression', uri(withId), 1),
  optional('Pricing', {
    attributes: {
      model: { type: ['CPC', 'CPM', 'CPE', 'CPV', 'cpc', 'cpm', 'cpe', 'cpv'], required: true },
      currency: { type: 'currency', required: true },
    },
    text: 'decimal',
  }),
  optional('ViewableImpression', {
    attributes: withId,
    content: {
      kind: 'sequence',
      particles: [any('Viewable', uri()), any('NotViewable', uri()), any('ViewUndetermined', uri())],
    },
  }),
];

const linearBase: Particle[] = [optional('Icons', unchecked), optional('TrackingEvents', trackingEvents)];
const linearAttributes = { skipoffset: { type: 'offset' as const } };

const mediaFile: ElementRule = {
  attributes: {
    id: { type: 'string' },
    delivery: { type: ['streaming', 'progressive'], required: true },
    type: { type: 'string', required: true },
    width: { type: 'integer', required: true },
    height: { type: 'integer', required: true },
    codec: { type: 'string' },
    bitrate: { type: 'integer' },
    minBitrate: { type: 'integer' },
    maxBitrate: { type: 'integer' },
    scalable: { type: 'boolean' },
    maintainAspectRatio: { type: 'boolean' },
    apiFramework: { type: 'string' },
  },
  text: 'uri',
};

const clickTrackers = [any('ClickTracking', uri(withId)), any('CustomClick', uri(withId))];

const linearInline: ElementRule = {
  attributes: linearAttributes,
  content: {
    kind: 'sequence',
    particles: [
      ...linearBase,
      optional('AdParameters', { attributes: { xmlEncoded: { type: 'boolean' } }, text: 'string' }),
      one('Duration', { attributes: {}, text: 'time' }),
      one('MediaFiles', {
        attributes: {},
        content: {
          kind: 'sequence',
          particles: [
            any('MediaFile', mediaFile, 1),
            optional('Mezzanine', uri('any')),
            any('InteractiveCreativeFile', uri({ type: { type: 'string' }, apiFramework: { type: 'string' } })),
          ],
        },
      }),
      optional('VideoClicks', {
        attributes: {},
        content: { kind: 'sequence', particles: [...clickTrackers, optional('ClickThrough', uri(withId))] },
      }),
    ],
  },
};

const linearWrapper: ElementRule = {
  attributes: linearAttributes,
  content: {
    kind: 'sequence',
    particles: [
      ...linearBase,
      optional('VideoClicks', { attributes: {}, content: { kind: 'sequence', particles: clickTrackers } }),
    ],
  },
};

const creativeAttributes = {
  sequence: { type: 'integer' as const },
  apiFramework: { type: 'string' as const },
  id: { type: 'string' as const },
  adId: { type: 'string' as const },
};

const creativeInline: ElementRule = {
  attributes: creativeAttributes,
  content: {
    kind: 'all',
    particles: [
      optional('CompanionAds', unchecked),
      optional('CreativeExtensions', unchecked),
      optional('Linear', linearInline),
      optional('NonLinearAds', unchecked),
      one('UniversalAdId', {
        attributes: { idRegistry: { type: 'string', required: true }, idValue: { type: 'string', required: true } },
        text: 'string',
      }),
    ],
  },
};

const creativeWrapper: ElementRule = {
  attributes: creativeAttributes,
  content: {
    kind: 'sequence',
    particles: [
      optional('CompanionAds', unchecked),
      optional('Linear', linearWrapper),
      optional('NonLinearAds', unchecked),
    ],
  },
};

const inline: ElementRule = {
  attributes: {},
  content: {
    kind: 'sequence',
    particles: [
      ...adBase,
      one('AdTitle', str),
      optional('AdVerifications', unchecked),
      optional('Advertiser', str),
      any('Category', { attributes: { authority: { type: 'reference', required: true } }, text: 'string' }),
      one('Creatives', {
        attributes: {},
        content: { kind: 'sequence', particles: [any('Creative', creativeInline, 1)] },
      }),
      optional('Description', str),
      optional('Survey', uri({ type: { type: 'string' } })),
    ],
  },
};

const wrapper: ElementRule = {
  attributes: {
    followAdditionalWrappers: { type: 'boolean' },
    allowMultipleAds: { type: 'boolean' },
    fallbackOnNoAd: { type: 'boolean' },
  },
  content: {
    kind: 'sequence',
    particles: [
      ...adBase,
      optional('AdVerifications', unchecked),
      optional('Creatives', {
        attributes: {},
        content: { kind: 'sequence', particles: [any('Creative', creativeWrapper, 1)] },
      }),
      one('VASTAdTagURI', uri()),
    ],
  },
};

const ad: ElementRule = {
  attributes: { id: { type: 'string' }, sequence: { type: 'integer' }, conditionalAd: { type: 'boolean' } },
  content: { kind: 'one-of', optional: false, particles: [one('InLine', inline), one('Wrapper', wrapper)] },
};

const vast: ElementRule = {
  attributes: { version: { type: 'string', required: true } },
  // The schema's choice: ads, or (when there is none to give) error URIs, never both.
  content: { kind: 'one-of', optional: true, particles: [any('Ad', ad), any('Error', uri())] },
};

// ---- values ----

const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
const OFFSET = /^(\d{2}:[0-5]\d:[0-5]\d(\.\d\d\d)?|1?\d?\d(\.?\d)*%)$/;

function valueProblem(type: ValueType, raw: string): string | undefined {
  // Every type we check but string collapses white space in XML Schema: a CDATA section may pad the value.
  const value = type === 'string' ? raw : raw.trim();
  if (Array.isArray(type)) return type.includes(value) ? undefined : `is not one of ${type.join(', ')}`;
  switch (type) {
    case 'string':
      return undefined;
    case 'reference':
      // An identifier in URI form (a category authority): the schema's anyURI, which takes a relative one too.
      return /\s/.test(value) ? 'is not a URI reference' : undefined;
    case 'uri':
      // Absolute http(s) where a value is given: players fetch these. The schema's anyURI would also take a
      // relative or empty one, but a player can do nothing with it.
      if (value === '') return undefined;
      try {
        const url = new URL(value);
        return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'is not an http(s) URL';
      } catch {
        return 'is not a URL';
      }
    case 'integer':
      return /^[+-]?\d+$/.test(value) ? undefined : 'is not an integer';
    case 'boolean':
      return /^(true|false|1|0)$/.test(value) ? undefined : 'is not a boolean';
    case 'decimal':
      return /^[+-]?(\d+(\.\d*)?|\.\d+)$/.test(value) ? undefined : 'is not a decimal';
    case 'currency':
      return /^[a-zA-Z]{3}$/.test(value) ? undefined : 'is not a three-letter currency';
    case 'offset':
      return OFFSET.test(value) ? undefined : 'is neither HH:MM:SS[.mmm] nor a percentage';
    case 'time': {
      const m = TIME.exec(value);
      if (!m) return 'is not a time (HH:MM:SS)';
      return Number(m[1]) < 24 && Number(m[2]) < 60 && Number(m[3]) < 60 ? undefined : 'is not a time of day';
    }
  }
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

function checkElement(node: Node, rule: ElementRule, path: string, problems: string[]): void {
  for (const [name, value] of Object.entries(node.attributes)) {
    if (name === 'xmlns') {
      if (value !== VAST_NAMESPACE) problems.push(`${path}: xmlns="${value}" leaves the VAST namespace`);
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
  if (rule.content) checkContent(node, rule.content, path, problems);
}

function checkCount(p: Particle, count: number, path: string, problems: string[]): void {
  if (count < p.min) problems.push(`${path}: ${p.name} is required${p.min > 1 ? ` ${p.min} times` : ''}`);
  if (count > p.max)
    problems.push(`${path}: ${p.name} may appear at most ${p.max} time${p.max === 1 ? '' : 's'}, found ${count}`);
}

function checkContent(node: Node, content: Content, path: string, problems: string[]): void {
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
    if (rule) checkElement(c, rule, `${path}/${c.name}[${n}]`, problems);
  }
}

/** The problems the check finds in a VAST 4.0 document, each with the path of the element; empty when there is none. */
export function vastStructureProblems(xml: string): string[] {
  const wellFormed = XMLValidator.validate(xml);
  if (wellFormed !== true) return [`not well-formed XML: ${wellFormed.err.msg} (line ${wellFormed.err.line})`];
  const { nodes, text } = toNodes(parser.parse(xml) as Ordered);
  if (text.trim() !== '') return ['text outside the root element'];
  if (nodes.length !== 1) return [`one root element expected, found ${nodes.length}`];
  const root = nodes[0] as Node;
  if (root.name !== 'VAST') return [`the root element is ${root.name}, not VAST`];
  const problems: string[] = [];
  if (root.attributes.xmlns !== VAST_NAMESPACE) problems.push(`/VAST: the default namespace must be ${VAST_NAMESPACE}`);
  const version = root.attributes.version;
  if (version !== undefined && !/^4\.\d+(\.\d+)?$/.test(version.trim()))
    problems.push(`/VAST/@version: "${version}" is not a VAST 4 version`);
  checkElement(root, vast, '/VAST', problems);
  return problems;
}
