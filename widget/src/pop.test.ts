import { describe, expect, it } from 'vitest';
import { mayPop } from './pop.ts';

/** A window as mayPop sees it: its origin, and its top window (itself, or one whose location may refuse to be read). */
function frame(origin: string, top: 'self' | 'cross-origin' | { origin: string }): Window {
  const w = { location: { origin } } as { location: { origin: string }; top: unknown };
  w.top =
    top === 'self'
      ? w
      : {
          get location() {
            // A browser refuses a frame the top's location when the top is of another origin.
            if (top === 'cross-origin') throw new Error('SecurityError');
            return top;
          },
        };
  return w as unknown as Window;
}

describe('where a popunder widget may open its pop', () => {
  it('in the top window', () => expect(mayPop(frame('https://news.example', 'self'))).toBe(true));

  it("in a frame of the top page's own origin", () =>
    expect(mayPop(frame('https://news.example', { origin: 'https://news.example' }))).toBe(true));

  it("in a sandboxed frame (an opaque origin: its embedder allowed it pop-ups, as the cabinet's preview does)", () =>
    expect(mayPop(frame('null', 'cross-origin'))).toBe(true));

  it('never in a frame of another origin than the top page', () => {
    expect(mayPop(frame('https://news.example', 'cross-origin'))).toBe(false);
    expect(mayPop(frame('https://news.example', { origin: 'https://other.example' }))).toBe(false);
  });
});
