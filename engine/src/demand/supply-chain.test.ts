import { describe, expect, it } from 'vitest';
import { ourSupplyChain, versionOf } from './supply-chain.ts';

describe('our supply chain node', () => {
  it('starts a complete chain with our node when the impression is our own zone', () => {
    expect(ourSupplyChain('adnet.example', '42')).toEqual({
      complete: 1,
      ver: '1.0',
      nodes: [{ asi: 'adnet.example', sid: '42', hp: 1 }],
    });
  });

  it("appends our node to a chain a request already carries, keeping the upstream's completeness", () => {
    const upstream = { complete: 1, ver: '1.0', nodes: [{ asi: 'exchange.example', sid: 'p-7', hp: 1 }] };
    expect(ourSupplyChain('adnet.example', '42', upstream)).toEqual({
      complete: 1,
      ver: '1.0',
      nodes: [
        { asi: 'exchange.example', sid: 'p-7', hp: 1 },
        { asi: 'adnet.example', sid: '42', hp: 1 },
      ],
    });
    expect(ourSupplyChain('adnet.example', '42', { ...upstream, complete: 0 }).complete).toBe(0);
    expect(upstream.nodes).toHaveLength(1);
  });

  it('takes a stored partner without the setting as 2.5', () => {
    expect(versionOf({})).toBe('2.5');
    expect(versionOf({ openrtb_version: '2.6' })).toBe('2.6');
    expect(versionOf({ openrtb_version: '3.0' })).toBe('2.5');
  });
});
