import { describe, expect, it } from 'vitest';
import { allClearText, deliveryText, needsAttention } from './delivery-text.ts';

const c = (status: string, serving: boolean) => ({ status, delivery: { serving } });

describe('delivery words', () => {
  it("says why a campaign does not serve, in the API's reasons' order", () => {
    expect(deliveryText({ serving: true, reasons: [] })).toBe('Serving');
    expect(deliveryText({ serving: false, reasons: ['draft', 'no_approved_creative', 'no_funds'] })).toBe(
      'Not serving: not activated, no approved creative yet, no funds: add balance',
    );
  });

  it('claims every active campaign serves only when one is active and all are', () => {
    // The case: a lone draft is not "every active campaign serving".
    expect(allClearText([c('draft', false)])).toBe('No campaign is active.');
    expect(allClearText([])).toBe('No campaign is active.');
    expect(allClearText([c('active', true), c('paused', false)])).toBe('Every active campaign is serving.');
    expect(allClearText([c('active', true), c('active', false)])).toBe('');
  });

  it('lists drafts and active campaigns that do not serve, not those stopped on purpose', () => {
    const list = [c('draft', false), c('active', false), c('active', true), c('paused', false), c('archived', false)];
    expect(needsAttention(list)).toEqual([c('draft', false), c('active', false)]);
  });
});
