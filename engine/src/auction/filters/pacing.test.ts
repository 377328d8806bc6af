import { describe, expect, it } from 'vitest';
import { candidateOf } from '../../index/candidate.ts';
import { campaignFixture, creativeFixture } from '../../../test/fixtures/index-fixtures.ts';
import { impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { pacingFilter } from './pacing.ts';

const paced = (rate: number) => candidateOf(campaignFixture(), creativeFixture(), { rate });

describe('pacing filter', () => {
  it('lets a campaign into about its rate of auctions', () => {
    const c = paced(0.2);
    let entered = 0;
    for (let i = 0; i < 20_000; i++) if (!pacingFilter.reject(c, impFixture())) entered++;
    expect(entered / 20_000).toBeGreaterThan(0.18);
    expect(entered / 20_000).toBeLessThan(0.22);
  });

  it('never holds back a campaign at full rate', () => {
    const c = paced(1);
    for (let i = 0; i < 1_000; i++) expect(pacingFilter.reject(c, impFixture())).toBe(false);
  });
});
