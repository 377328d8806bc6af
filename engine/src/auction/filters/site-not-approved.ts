import type { ImpFilter } from '../filter.ts';

/** A request naming one of our sites (`site.id`) is served only once that site is approved. */
export const siteNotApprovedFilter: ImpFilter = {
  name: 'site_not_approved',
  scope: 'imp',
  reject: (_imp, req) => req.ownSite !== undefined && req.ownSite.status !== 'approved',
};
