import { describe, expect, it } from 'vitest';
import { defaultOf, envDocs, renderPage, typeOf } from './config-docs.ts';

describe('envDocs', () => {
  it("reads each variable's JSDoc and the slice's, on one line, and skips the undocumented", () => {
    const source = `
      /** Not this one. */
      export const other = z.object({ A: z.string() });
      /** The slice. */
      export const serverSlice = z.object({
        /**
         * Two lines
         * joined.
         */
        A: z.string(),
        // A line comment is no description.
        B: z.string(),
        /** Short. */
        C: z.string(),
      });`;
    expect([...envDocs(source)]).toEqual([
      ['slice:server', 'The slice.'],
      ['A', 'Two lines joined.'],
      ['C', 'Short.'],
    ]);
  });
});

describe('typeOf and defaultOf', () => {
  it('renders ranges, choices, unions and unset defaults', () => {
    expect(typeOf({ type: 'integer', minimum: 1, maximum: 9 })).toBe('integer 1 to 9');
    expect(
      typeOf({
        anyOf: [
          { type: 'integer', minimum: 1, maximum: 9 },
          { type: 'number', const: 0 },
        ],
      }),
    ).toBe('integer 1 to 9 or `0`');
    expect(typeOf({ type: 'string', enum: ['a', 'b'] })).toBe('one of `a`, `b`');
    expect(typeOf({ type: 'string', minLength: 1 })).toBe('string');
    expect(defaultOf({ type: 'string' })).toBe('unset');
    expect(defaultOf({ type: 'string', default: '' })).toBe('empty');
    expect(defaultOf({ type: 'boolean', default: false })).toBe('`false`');
  });
});

describe('renderPage', () => {
  it('refuses a variable without a description, naming it', () => {
    expect(() => renderPage(new Map([['HOST', 'x']]))).toThrow(/add a JSDoc comment to PORT, /);
  });
});
