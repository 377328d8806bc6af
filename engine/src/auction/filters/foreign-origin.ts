import { pageOnSite } from '../../fraud/page-origin.ts';
import type { ImpFilter } from '../filter.ts';

/**
 * A widget request from a page that is not on its zone's site: someone else's page farming the
 * zone's tickets (or a publisher's tag copied elsewhere). Counted apart, never given an ad.
 */
export const foreignOriginFilter: ImpFilter = {
  name: 'foreign_origin',
  scope: 'imp',
  reject: (imp, req) => {
    if (req.pageHost === undefined || !imp.zone) return false;
    const site = req.index.sites.get(imp.zone.zone.site_id);
    return site === undefined || !pageOnSite(req.pageHost, site.domain);
  },
};
