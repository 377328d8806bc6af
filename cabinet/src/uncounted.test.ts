import { describe, expect, it } from 'vitest';
import { uncountedByReason, uncountedReasonLabel } from './uncounted.ts';

describe("a publisher's uncounted traffic", () => {
  it('sums each kind and reason over the groups, most first', () => {
    const rows = [
      { date: '2026-11-01', of: 'request' as const, reason: 'bot_traffic', events: 2 },
      { date: '2026-11-02', of: 'request' as const, reason: 'bot_traffic', events: 3 },
      { date: '2026-11-02', of: 'click' as const, reason: 'expired', events: 7 },
      { date: '2026-11-02', of: 'impression' as const, reason: 'expired', events: 1 },
    ];
    expect(uncountedByReason(rows)).toEqual([
      { of: 'click', reason: 'expired', events: 7 },
      { of: 'request', reason: 'bot_traffic', events: 5 },
      { of: 'impression', reason: 'expired', events: 1 },
    ]);
    expect(uncountedByReason([])).toEqual([]);
  });

  it('names each reason for its kind, and shows one it does not know as the API writes it', () => {
    expect(uncountedReasonLabel('request', 'foreign_origin')).toBe("From a page not on the zone's site");
    expect(uncountedReasonLabel('impression', 'expired')).toBe('Reported too late');
    expect(uncountedReasonLabel('click', 'expired')).toBe('More than a day after the ad was shown');
    expect(uncountedReasonLabel('click', 'not_rendered')).toBe('The ad was never shown');
    expect(uncountedReasonLabel('click', 'budget_exhausted')).toBe("Advertiser's daily budget used up");
    expect(uncountedReasonLabel('click', 'some_new_rule')).toBe('some_new_rule');
  });
});
