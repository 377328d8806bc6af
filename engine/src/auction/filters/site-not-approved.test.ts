import type { StoredSite } from '@adnet/schemas/publisher';
import { describe, expect, it } from 'vitest';
import { impFixture, requestFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { siteNotApprovedFilter } from './site-not-approved.ts';

const site = (status: StoredSite['status']) => ({ id: 3, publisher_id: 2, status }) as StoredSite;

describe('site not approved filter', () => {
  it('rejects a request naming one of our sites before it is approved', () => {
    expect(siteNotApprovedFilter.reject(impFixture(), requestFixture({ ownSite: site('pending_review') }))).toBe(true);
    expect(siteNotApprovedFilter.reject(impFixture(), requestFixture({ ownSite: site('rejected') }))).toBe(true);
  });

  it('accepts an approved site and requests that name none of ours', () => {
    expect(siteNotApprovedFilter.reject(impFixture(), requestFixture({ ownSite: site('approved') }))).toBe(false);
    expect(siteNotApprovedFilter.reject(impFixture(), requestFixture({ ownSite: undefined }))).toBe(false);
  });
});
