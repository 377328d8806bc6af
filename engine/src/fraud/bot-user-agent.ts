import { isbot } from 'isbot';

/**
 * General invalid traffic by user agent: the maintained `isbot` list (crawlers, monitors, headless
 * browsers, HTTP libraries; Unlicense), and no user agent at all. Refreshed with the package.
 */
export const isBotUserAgent = (ua: string): boolean => ua === '' || isbot(ua);
