import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { blockedCategoryFilter } from './blocked-category.ts';

describe('blocked category filter (bcat)', () => {
  const gambling = candidateFixture({ vertical: 'gambling' });

  it('blocks the vertical’s category and its parents', () => {
    expect(blockedCategoryFilter.reject(gambling, impFixture({ bcat: ['IAB9'] }))).toBe(true);
    expect(blockedCategoryFilter.reject(gambling, impFixture({ bcat: ['IAB9-7'] }))).toBe(true);
  });

  it('lets other categories, a sibling with a longer code and no bcat through', () => {
    expect(blockedCategoryFilter.reject(gambling, impFixture({ bcat: ['IAB9-70', 'IAB1'] }))).toBe(false);
    expect(blockedCategoryFilter.reject(gambling, impFixture({ bcat: undefined }))).toBe(false);
  });
});
