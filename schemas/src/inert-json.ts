/**
 * JSON that stays inert wherever it is pasted: `<`, `>`, `&` and the line separators U+2028/U+2029 as
 * `\u` escapes, so no value can close a script element, open a tag, or end a string literal in a
 * JavaScript engine older than ES2019. Still the same JSON to any parser.
 */
export const inertJson = (v: unknown): string =>
  JSON.stringify(v).replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
