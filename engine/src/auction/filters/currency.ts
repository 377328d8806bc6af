import type { ImpFilter, RequestFilter } from '../filter.ts';

// We bid in USD only: a request whose `cur` leaves USD out, or an impression
// whose floor is in another currency, gets no bid.

export const currencyFilter: RequestFilter = {
  name: 'currency',
  scope: 'request',
  reject: (req) => !req.usd,
};

export const floorCurrencyFilter: ImpFilter = {
  name: 'currency',
  scope: 'imp',
  reject: (imp) => imp.floorCurrency !== undefined && imp.floorCurrency !== '' && imp.floorCurrency !== 'USD',
};
