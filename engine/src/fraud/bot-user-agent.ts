import { memoByString } from '@adnet/runtime/memo';
import { isbot } from 'isbot';

/** User agents repeat heavily; the list's one large pattern costs ~4 us a call, a memo hit ~0.05 us. */
const listed = memoByString(isbot);

/**
 * General invalid traffic by user agent: the maintained `isbot` list (crawlers, monitors, headless
 * browsers, HTTP libraries; Unlicense), and no user agent at all. Refreshed with the package.
 */
export const isBotUserAgent = (ua: string): boolean => ua === '' || listed(ua);
