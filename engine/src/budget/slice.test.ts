import { describe, expect, it } from 'vitest';
import { BID_HOLD_MS } from '../auction/ticket-age.ts';
import { Slice } from './budget-slices.ts';

// The slice's bookkeeping of outstanding bids: what a re-base reports as still held decides how much of this
// engine's Redis hold stays, so a bid must leave it exactly once (settled, given back or expired).
describe('Slice', () => {
  it('settles oldest first, splitting a bid a settlement only partly covers', () => {
    const s = new Slice();
    s.local = 1_000;
    s.take(300, 1);
    s.take(200, 2);
    s.take(100, 3);
    expect([s.local, s.outstanding]).toEqual([400, 600]);
    s.settle(350); // the first bid and 50 of the second
    expect(s.outstanding).toBe(250);
    // What is left of the second bid (150) expires with it; the third is younger.
    s.expire(2 + BID_HOLD_MS + 1);
    expect(s.outstanding).toBe(100);
    s.expire(3 + BID_HOLD_MS + 1);
    expect(s.outstanding).toBe(0);
    // Settling more than is outstanding (a win after its bid expired) cannot go below zero.
    s.settle(500);
    expect(s.outstanding).toBe(0);
  });

  it('gives an untaken bid back to the local budget and out of the outstanding ones', () => {
    const s = new Slice();
    s.local = 500;
    s.take(200, 10);
    s.take(100, 20);
    s.untake(100);
    expect([s.local, s.outstanding]).toEqual([300, 200]);
    // The 100 came off the oldest bid: 100 of it is left, and the younger bid is whole.
    s.expire(10 + BID_HOLD_MS + 1);
    expect(s.outstanding).toBe(100);
  });

  it('keeps a bid held until its hold has fully run', () => {
    const s = new Slice();
    s.take(100, 1_000);
    s.expire(1_000 + BID_HOLD_MS);
    expect(s.outstanding).toBe(100);
    s.expire(1_000 + BID_HOLD_MS + 1);
    expect(s.outstanding).toBe(0);
  });
});
