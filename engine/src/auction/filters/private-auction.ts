import type { ImpFilter } from '../filter.ts';

/**
 * `imp.pmp.private_auction: 1` admits deal bids only: without a deal of the imp that we hold for this
 * partner (request-context.ts, matchedDeals) there is nothing we may bid. With one, serve runs the
 * deal auctions alone (serve.ts).
 */
export const privateAuctionFilter: ImpFilter = {
  name: 'private_auction',
  scope: 'imp',
  reject: (imp) => imp.privateAuction && imp.deals.length === 0,
};
