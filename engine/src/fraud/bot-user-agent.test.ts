import { describe, expect, it } from 'vitest';
import { isBotUserAgent } from './bot-user-agent.ts';

describe('isBotUserAgent', () => {
  it.each([
    'Googlebot/2.1 (+http://www.google.com/bot.html)',
    'Mozilla/5.0 HeadlessChrome/125.0',
    'curl/8.0',
    'python-requests/2.31',
    '',
  ])('flags %j', (ua) => {
    expect(isBotUserAgent(ua)).toBe(true);
  });
  it.each([
    'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
  ])('lets a browser through: %s', (ua) => {
    expect(isBotUserAgent(ua)).toBe(false);
  });
});
