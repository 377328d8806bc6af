import { describe, expect, it } from 'vitest';
import { inventoryControls } from '../../index/inventory-controls.ts';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { zoneBlockedVerticalFilter } from './zone-blocked-vertical.ts';

const controls = (blocked_verticals: ('gambling' | 'dating')[] | null) =>
  inventoryControls({ blocked_verticals }, undefined);

describe('zone blocked vertical filter', () => {
  const gambling = candidateFixture({ vertical: 'gambling' });

  it("rejects a campaign whose vertical the zone's publisher blocks", () => {
    expect(zoneBlockedVerticalFilter.reject(gambling, impFixture({ controls: controls(['dating', 'gambling']) }))).toBe(
      true,
    );
  });

  it('lets other verticals through, and everything where nothing is blocked or the inventory is not ours', () => {
    expect(zoneBlockedVerticalFilter.reject(gambling, impFixture({ controls: controls(['dating']) }))).toBe(false);
    expect(zoneBlockedVerticalFilter.reject(gambling, impFixture({ controls: controls(null) }))).toBe(false);
    expect(zoneBlockedVerticalFilter.reject(gambling, impFixture({ controls: undefined }))).toBe(false);
  });
});
