import { isBotUserAgent } from './bot-user-agent.ts';

/** What a click tells us (query of `/c/...`: ttc, x, y, focus, fp, s) and its request. */
export interface ClickSignals {
  /** Milliseconds from render to click. */
  ttc: number | undefined;
  x: number | undefined;
  y: number | undefined;
  /** 1 when the page had focus at the click. */
  focus: boolean;
  fingerprint: string;
  userAgent: string;
  /** Milliseconds since the impression was served (from its signed token). */
  ageMs: number;
  /** Its render beacon was counted before the click (read from the shared counters, never from the query). */
  rendered: boolean;
}

/** A fraud rule: its name is the reason recorded on an invalid click. Checked in order; the first that fires wins. */
export interface ClickRule {
  readonly name: string;
  invalid(s: ClickSignals): boolean;
}

export const CLICK_RULES: readonly ClickRule[] = [
  { name: 'bot_user_agent', invalid: (s) => isBotUserAgent(s.userAgent) },
  // An ad can only be clicked once it is on the page, and the widget reports that before any click can happen.
  { name: 'not_rendered', invalid: (s) => !s.rendered },
  // A human needs a few hundred milliseconds to see an ad and click it.
  { name: 'too_fast', invalid: (s) => s.ttc === undefined || s.ttc < 300 },
  { name: 'no_focus', invalid: (s) => !s.focus },
  {
    name: 'no_position',
    invalid: (s) => s.x === undefined || s.y === undefined || s.x < 0 || s.y < 0 || (s.x === 0 && s.y === 0),
  },
  { name: 'no_fingerprint', invalid: (s) => !/^[A-Za-z0-9_-]{8,128}$/.test(s.fingerprint) },
  // Clicks on impressions older than a day are not billed (the landing page still opens).
  { name: 'expired', invalid: (s) => s.ageMs > 86_400_000 },
];

/** The first rule a click breaks, or undefined for a valid click. */
export function clickVerdict(s: ClickSignals, rules: readonly ClickRule[] = CLICK_RULES): string | undefined {
  return rules.find((r) => r.invalid(s))?.name;
}

// At module level: a closure per click would also pay tsx's __name (bench/results/ab-history.md, step 6).
const numberParam = (q: URLSearchParams, k: string): number | undefined => {
  const v = q.get(k);
  return v !== null && /^-?\d{1,9}$/.test(v) ? Number(v) : undefined;
};

export function parseClickSignals(query: string, userAgent: string, ageMs: number, rendered: boolean): ClickSignals {
  const q = new URLSearchParams(query);
  return {
    ttc: numberParam(q, 'ttc'),
    x: numberParam(q, 'x'),
    y: numberParam(q, 'y'),
    focus: q.get('focus') === '1',
    fingerprint: q.get('fp') ?? '',
    userAgent,
    ageMs,
    rendered,
  };
}
