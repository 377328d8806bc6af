// Money is integer end to end. Dollar amounts arrive as JSON numbers; they are
// converted through their shortest decimal spelling so that 0.29 becomes
// exactly 29000 micro-cents, never 28999 through binary rounding.

/** Number of decimal places in the shortest round-trip spelling of `n`. */
export function decimalPlaces(n: number): number {
  if (!Number.isFinite(n)) return Infinity;
  const text = String(n);
  const exp = /e([+-]\d+)$/.exec(text);
  const mantissa = exp ? text.slice(0, exp.index) : text;
  const dot = mantissa.indexOf('.');
  const fraction = dot === -1 ? 0 : mantissa.length - dot - 1;
  return Math.max(0, fraction - (exp ? Number(exp[1]) : 0));
}

/**
 * Exact `usd * 10^places` for a number with at most `places` decimals.
 * Callers validate `decimalPlaces(usd) <= places` first.
 */
export function scaleDecimal(usd: number, places: number): number {
  const [whole = '0', fraction = ''] = usd.toFixed(places).split('.');
  const sign = whole.startsWith('-') ? -1 : 1;
  return sign * (Math.abs(Number(whole)) * 10 ** places + Number(fraction || '0'));
}

/** The spec's sample pair implies 100 000 micro-cents per dollar. */
export const MICRO_CENTS_PER_USD = 100_000;
export const usdToMicroCents = (usd: number): number => scaleDecimal(usd, 5);
export const usdToCents = (usd: number): number => scaleDecimal(usd, 2);
export const microCentsToUsd = (microCents: number): number => microCents / MICRO_CENTS_PER_USD;
export const centsToUsd = (cents: number): number => cents / 100;

// Spend is counted in nano-dollars (1e-9 USD): a CPM bid of 1 micro-cent is
// exactly 10 nano-dollars per impression, so per-impression charges of any
// valid bid stay integers, and a day's spend of the largest budget ($1M = 1e15)
// stays below 2^53.
export const NANO_USD_PER_CENT = 10_000_000;
/** Charge of one impression at a CPM price in micro-cents. */
export const cpmMicroCentsToNanoPerImpression = (cpmMicroCents: number): number => cpmMicroCents * 10;
/** Charge of one click at a CPC price in micro-cents. */
export const cpcMicroCentsToNano = (microCents: number): number => microCents * 10_000;
export const centsToNano = (cents: number): number => cents * NANO_USD_PER_CENT;
/** Whole cents spent (rounded down) from a nano-dollar counter. */
export const nanoToCentsFloor = (nano: number): number => Math.floor(nano / NANO_USD_PER_CENT);
