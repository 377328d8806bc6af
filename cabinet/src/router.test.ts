import { describe, expect, it } from 'vitest';
import { match } from './router.ts';

describe('match', () => {
  it('takes parameters from their segments and decodes them', () => {
    expect(match('/campaigns/:id', '/campaigns/7')).toEqual({ id: '7' });
    expect(match('/a/:x/b', '/a/caf%C3%A9/b')).toEqual({ x: 'café' });
    expect(match('/profile', '/profile')).toEqual({});
  });

  it('refuses other lengths and other fixed segments', () => {
    expect(match('/campaigns/:id', '/campaigns')).toBeNull();
    expect(match('/campaigns/:id', '/campaigns/7/edit')).toBeNull();
    expect(match('/campaigns/new', '/campaigns/7')).toBeNull();
  });
});
