/** More valid-looking clicks than this from one fingerprint in a minute are a flood. */
export const FLOOD_PER_MINUTE = 5;

/**
 * The rules a click that passed its surface's rules (click-rules.ts, server-click-rules.ts) is judged by
 * against the counters every engine shares: `perMinute` is how many valid-looking clicks its fingerprint
 * made this minute, undefined when its ticket already had one (store/counters.ts countClick).
 */
export interface CountedClickRule {
  readonly name: string;
  invalid(perMinute: number | undefined): boolean;
}

export const COUNTED_CLICK_RULES: readonly CountedClickRule[] = [
  // One valid click per impression: an invalid click uses up nothing.
  { name: 'duplicate', invalid: (perMinute) => perMinute === undefined },
  { name: 'click_flood', invalid: (perMinute) => (perMinute ?? 0) > FLOOD_PER_MINUTE },
];

/** The first counted rule a click breaks, or undefined; counting it under `id` (its ticket) and `fingerprint`. */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: judges every /c click
export async function countedClickVerdict(
  // The counters port's countClick (auction/ports.ts), named here: the fraud rules sit below the auction.
  counters: {
    countClick(id: string, fingerprint: string, nowMs: number, attempt?: string): Promise<number | undefined>;
  },
  id: string,
  fingerprint: string,
  now: number,
  attempt?: string,
  rules: readonly CountedClickRule[] = COUNTED_CLICK_RULES,
): Promise<string | undefined> {
  const perMinute = await counters.countClick(id, fingerprint, now, attempt);
  // An indexed loop: a closure for find would be one more allocation per click.
  for (let i = 0; i < rules.length; i++)
    if ((rules[i] as CountedClickRule).invalid(perMinute)) return (rules[i] as CountedClickRule).name;
  return undefined;
}
