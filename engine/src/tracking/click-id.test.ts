import { describe, expect, it } from 'vitest';
import { clickIdOf } from './click-id.ts';

describe('clickIdOf', () => {
  it('is one UUID per ticket, the same every time, different per bid and per secret', () => {
    const id = clickIdOf('s'.repeat(40), 'bid-1');
    expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(clickIdOf('s'.repeat(40), 'bid-1')).toBe(id);
    expect(clickIdOf('s'.repeat(40), 'bid-2')).not.toBe(id);
    expect(clickIdOf('t'.repeat(40), 'bid-1')).not.toBe(id);
  });
});
