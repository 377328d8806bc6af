import { describe, expect, it } from 'vitest';
import { candidateFixture, impFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { connectionTypeFilter } from './connection-type.ts';

describe('connection type filter', () => {
  it('keeps a campaign with connection types to requests on one of them', () => {
    const c = candidateFixture({ connection_types: ['wifi', 'ethernet'] });
    expect(connectionTypeFilter.reject(c, impFixture({ connection: 'cellular_4g' }))).toBe(true);
    expect(connectionTypeFilter.reject(c, impFixture({ connection: 'wifi' }))).toBe(false);
  });

  it('gives a campaign with connection types nothing where the connection is unknown (our own zones)', () => {
    expect(
      connectionTypeFilter.reject(
        candidateFixture({ connection_types: ['wifi'] }),
        impFixture({ connection: undefined }),
      ),
    ).toBe(true);
    expect(
      connectionTypeFilter.reject(candidateFixture({ connection_types: [] }), impFixture({ connection: undefined })),
    ).toBe(false);
  });
});
