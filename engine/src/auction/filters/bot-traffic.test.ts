import { describe, expect, it } from 'vitest';
import { requestFixture } from '../../../test/fixtures/auction-fixtures.ts';
import { botTrafficFilter } from './bot-traffic.ts';

describe('bot traffic filter', () => {
  it('gives a bot no ad and a person one', () => {
    expect(botTrafficFilter.reject(requestFixture({ bot: true }))).toBe(true);
    expect(botTrafficFilter.reject(requestFixture({ bot: false }))).toBe(false);
  });
});
