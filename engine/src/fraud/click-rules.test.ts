import { describe, expect, it } from 'vitest';
import { clickVerdict, parseClickSignals } from './click-rules.ts';

const UA = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36';
const good = 'ttc=1500&x=120&y=40&focus=1&fp=abcdef123456';

describe('click fraud rules, one by one', () => {
  it('a human-looking click is valid', () => {
    expect(clickVerdict(parseClickSignals(good, UA, 5_000, true))).toBeUndefined();
  });
  it.each([
    ['bot_user_agent', good, 'Googlebot/2.1', 5_000],
    ['bot_user_agent', good, 'Mozilla/5.0 HeadlessChrome/125.0', 5_000],
    ['bot_user_agent', good, '', 5_000],
    ['too_fast', 'ttc=120&x=1&y=1&focus=1&fp=abcdef123456', UA, 5_000],
    ['too_fast', 'x=1&y=1&focus=1&fp=abcdef123456', UA, 5_000],
    ['no_focus', 'ttc=1500&x=1&y=1&focus=0&fp=abcdef123456', UA, 5_000],
    ['no_position', 'ttc=1500&x=0&y=0&focus=1&fp=abcdef123456', UA, 5_000],
    ['no_position', 'ttc=1500&x=-5&y=3&focus=1&fp=abcdef123456', UA, 5_000],
    ['no_fingerprint', 'ttc=1500&x=1&y=1&focus=1', UA, 5_000],
    ['no_fingerprint', 'ttc=1500&x=1&y=1&focus=1&fp=<script>', UA, 5_000],
    ['expired', good, UA, 2 * 86_400_000],
  ])('%s', (rule, query, ua, age) => {
    expect(clickVerdict(parseClickSignals(query, ua, age, true))).toBe(rule);
  });
  it('a click on an ad whose render was never counted is not_rendered, however human it looks', () => {
    expect(clickVerdict(parseClickSignals(good, UA, 5_000, false))).toBe('not_rendered');
    // Before the measurements are judged: no rendered ad, nothing of it to have measured.
    expect(clickVerdict(parseClickSignals('ttc=5&focus=0', UA, 2 * 86_400_000, false))).toBe('not_rendered');
    // A known bot is named as such first, rendered or not.
    expect(clickVerdict(parseClickSignals(good, 'Googlebot/2.1', 5_000, false))).toBe('bot_user_agent');
  });
});
