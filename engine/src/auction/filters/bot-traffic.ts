import type { RequestFilter } from '../filter.ts';

/** General invalid traffic: a request from a known bot's user agent is never given an ad. */
export const botTrafficFilter: RequestFilter = {
  name: 'bot_traffic',
  scope: 'request',
  reject: (req) => req.bot,
};
