/**
 * The pieces the project's VAST structure check (vast-structure.ts) describes each version's grammar with
 * (vast-rules-4.ts, vast-rules-legacy.ts): element rules, particles, and the value types the IAB schemas use.
 */

export type ValueType =
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

export interface ElementRule {
  /** Declared attributes; 'any' leaves them unchecked. */
  attributes?: Record<string, { type: ValueType; required?: true }> | 'any';
  /** Simple content: the text's type. */
  text?: ValueType;
  /** Element content. */
  content?: Content;
  /** Content not checked (the schema's extension points, and parts we do not write). */
  anyContent?: true;
}

export interface Particle {
  name: string;
  min: number;
  max: number;
  rule: ElementRule;
}

/** `sequence`: in this order; `all`: any order; `one-of`: children of exactly one particle (none when `optional`). */
export type Content =
  | { kind: 'sequence'; particles: Particle[] }
  | { kind: 'all'; particles: Particle[] }
  | { kind: 'one-of'; particles: Particle[]; optional: boolean };

export const MANY = Number.POSITIVE_INFINITY;
export const one = (name: string, rule: ElementRule): Particle => ({ name, min: 1, max: 1, rule });
export const optional = (name: string, rule: ElementRule): Particle => ({ name, min: 0, max: 1, rule });
export const any = (name: string, rule: ElementRule, min = 0): Particle => ({ name, min, max: MANY, rule });

export const unchecked: ElementRule = { attributes: 'any', anyContent: true };
export const uri = (attributes: ElementRule['attributes'] = {}): ElementRule => ({ attributes, text: 'uri' });
export const str: ElementRule = { attributes: {}, text: 'string' };
export const withId = { id: { type: 'string' as const } };

// ---- values ----

const TIME = /^(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})?$/;
const OFFSET = /^(\d{2}:[0-5]\d:[0-5]\d(\.\d\d\d)?|1?\d?\d(\.?\d)*%)$/;

/** What is wrong with a value of `type`, or undefined when nothing is. */
export function valueProblem(type: ValueType, raw: string): string | undefined {
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
