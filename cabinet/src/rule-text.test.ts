import { describe, expect, it } from 'vitest';
import { actionText, conditionsText, ruleText, valueText } from './rule-text.ts';

describe('rules in words', () => {
  it('reads a rule as IF conditions over a window THEN an action', () => {
    expect(
      ruleText({
        scope: 'zone',
        window: 'last_2_days',
        conditions: [
          { metric: 'spend_usd', op: '>', value: 5 },
          { metric: 'conversions', op: '<', value: 1 },
        ],
        action: 'exclude',
        amount_pct: null,
      }),
    ).toBe("If a zone's spend ($) > 5 and conversions < 1 over the last 2 days, exclude the zone");
  });

  it('says every action, with its amount where it has one', () => {
    expect(actionText('lower_bid', 'site', 20)).toBe("lower the site's bid 20 %");
    expect(actionText('raise_bid', 'country', 5)).toBe("raise the country's bid 5 %");
    expect(actionText('pause_creative', 'creative', null)).toBe('pause the creative');
    expect(actionText('pause_campaign', 'os', null)).toBe('pause the campaign');
    expect(actionText('notify', 'browser', null)).toBe('email me');
    expect(conditionsText([{ metric: 'roi', op: '<=', value: -0.5 }])).toBe('ROI <= -0.5');
  });

  it('shows a metric without a value as a dash', () => {
    expect([valueText(null), valueText(undefined), valueText(0), valueText(1.25)]).toEqual(['–', '–', '0', '1.25']);
  });
});
