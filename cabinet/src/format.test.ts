import { describe, expect, it } from 'vitest';
import { count, cpm, ctrOf, ecpaCents, ecpmCents, money, moneyNano, percent, spend } from './format.ts';

describe('cabinet number formats', () => {
  it('writes money with separators and a visible minus', () => {
    expect(money(1_000_000)).toBe('$10,000.00');
    expect(money(-48)).toBe('\u2212$0.48');
    expect(money(0)).toBe('$0.00');
    expect(money(123_456_789)).toBe('$1,234,567.89');
    // A demand partner's revenue in nano-dollars: $1,234.57 from 1 234 567 000 000 nano-dollars, rounded to the cent.
    expect(moneyNano(1_234_567_000_000)).toBe('$1,234.57');
    expect(moneyNano(4_000_000)).toBe('$0.00');
  });

  it('shows spend under a cent with up to four decimals, and to the cent from a cent up', () => {
    // 7 impressions at $1.50 CPM: 1.05 cents, shown to the cent; 7 at $0.15 CPM: 0.105 cents.
    expect(spend(10_500_000)).toBe('$0.01');
    expect(spend(1_050_000)).toBe('$0.0011');
    expect(spend(2_000_000)).toBe('$0.002');
    expect(spend(9_999_999)).toBe('$0.01');
    expect(spend(100_000)).toBe('$0.0001');
    expect(spend(99_999)).toBe('<$0.0001');
    expect(spend(0)).toBe('$0.00');
    // From a cent, what `spent_cents` says (rounded down, as the API does).
    expect(spend(10_000_000)).toBe('$0.01');
    expect(spend(123_456_789_000)).toBe('$123.45');
    expect(spend(-5_000_000)).toBe('\u2212$0.005');
  });

  it('writes CPM prices to the cent, keeping sub-cent digits', () => {
    expect(cpm(2.5)).toBe('$2.50 CPM');
    expect(cpm(0)).toBe('$0.00 CPM');
    expect(cpm(1234.5)).toBe('$1,234.50 CPM');
    expect(cpm(0.00125)).toBe('$0.00125 CPM');
  });

  it('writes counts and rates', () => {
    expect(count(1234567)).toBe('1,234,567');
    expect(percent(0.01234)).toBe('1.23%');
    expect(percent(Number.NaN)).toBe('0.00%');
  });

  it('derives rates without dividing by zero', () => {
    expect(ctrOf(3, 0)).toBe(0);
    expect(ctrOf(1, 4)).toBe(0.25);
    expect(ecpmCents(250, 1000)).toBe(250);
    expect(ecpmCents(5, 3)).toBe(1667);
    expect(ecpmCents(5, 0)).toBe(0);
    expect(ecpaCents(500, 0)).toBeNull();
    expect(ecpaCents(500, 3)).toBe(167);
  });
});
