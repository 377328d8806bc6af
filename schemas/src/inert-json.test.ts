import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { inertJson } from './inert-json.ts';

describe('inertJson', () => {
  it('is the same JSON with nothing that could close a script, open a tag or end a pre-ES2019 string', () => {
    const value = { base: '</script><script>alert(1)</script>', t: 'a\u2028b\u2029c & <!-- -->' };
    const text = inertJson(value);
    expect(text).not.toMatch(/[<>&\u2028\u2029]/);
    expect(JSON.parse(text)).toEqual(value);
    // As a script literal (the widget's settings) it evaluates to the same value.
    expect(runInNewContext(`(${text})`)).toEqual(value);
  });
});
