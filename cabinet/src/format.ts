/**
 * How numbers read in the cabinet: thousands separators, money with its sign before the symbol,
 * rates as percentages. One place, so every page and the CSV-free views agree.
 */
const MONEY = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});
const COUNT = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
// Floors and bids are dollars to five places: a sub-cent price must not round away.
const PRICE = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 5,
});
const PERCENT = new Intl.NumberFormat('en-US', {
  style: 'percent',
  minimumFractionDigits: 2,
  maximumFractionDigits: 2,
});

/** Cents as dollars: 1000000 -> "$10,000.00", -48 -> "−$0.48" (a real minus sign, so it cannot be missed). */
export function money(cents: number): string {
  const text = MONEY.format(Math.abs(cents) / 100);
  return cents < 0 ? `\u2212${text}` : text;
}

/** Nano-dollars (a demand partner's revenue: each impression is a fraction of a cent) as money, to the cent. */
export const moneyNano = (nano: number): string => money(Math.round(nano / 1e7));

const SUB_CENT = new Intl.NumberFormat('en-US', {
  style: 'currency',
  currency: 'USD',
  minimumFractionDigits: 2,
  maximumFractionDigits: 4,
});
const NANO_PER_CENT = 10_000_000;

/**
 * Spend in nano-dollars (the statistics' `spent_nano`) as money: to the cent like `money`, except an amount under a
 * cent that is not zero, which shows up to four decimals (1.05 cents -> "$0.0105", below $0.0001 -> "<$0.0001"), so
 * seven impressions at a low CPM do not read "$0.00" as if nothing had been counted.
 */
export function spend(nano: number): string {
  const abs = Math.abs(nano);
  if (abs === 0 || abs >= NANO_PER_CENT) return money(Math.sign(nano) * Math.floor(abs / NANO_PER_CENT));
  const text = abs < 100_000 ? '<$0.0001' : SUB_CENT.format(abs / 1e9);
  return nano < 0 ? `\u2212${text}` : text;
}

/** A price per thousand impressions given in dollars: 2.5 -> "$2.50 CPM", 0.00125 -> "$0.00125 CPM". */
export const cpm = (usd: number): string => `${PRICE.format(usd)} CPM`;

/** A whole number with separators: 12345 -> "12,345". */
export const count = (n: number): string => COUNT.format(n);

/** A ratio as a percentage: 0.01234 -> "1.23%". */
export const percent = (ratio: number): string => PERCENT.format(Number.isFinite(ratio) ? ratio : 0);

/** Click-through rate of a row, 0 without impressions. */
export const ctrOf = (clicks: number, impressions: number): number => (impressions > 0 ? clicks / impressions : 0);

/** Cost (or earnings) per thousand impressions, in cents; 0 without impressions. */
export const ecpmCents = (cents: number, impressions: number): number =>
  impressions > 0 ? Math.round((cents * 1000) / impressions) : 0;

/** Cost per conversion, in cents; null when there was no conversion (shown as a dash, not as $0). */
export const ecpaCents = (cents: number, conversions: number): number | null =>
  conversions > 0 ? Math.round(cents / conversions) : null;
