import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { browserFilter } from './browser.ts';

describe('browser filter', () => {
  it('keeps a campaign with browser families to requests from one of them', () => {
    const c = candidateFixture({ browser_include: ['safari', 'samsung'] });
    expect(browserFilter.reject(c, impFixture({ browser: 'chrome' }))).toBe(true);
    expect(browserFilter.reject(c, impFixture({ browser: undefined }))).toBe(true);
    expect(browserFilter.reject(c, impFixture({ browser: 'samsung' }))).toBe(false);
  });

  it('lets a campaign without browser families serve any browser, an unknown one too', () => {
    expect(browserFilter.reject(candidateFixture({ browser_include: [] }), impFixture({ browser: undefined }))).toBe(
      false,
    );
    expect(browserFilter.reject(candidateFixture({ browser_include: [] }), impFixture({ browser: 'other' }))).toBe(
      false,
    );
  });
});
