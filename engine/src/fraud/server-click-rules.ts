import { isBotUserAgent } from './bot-user-agent.ts';

/**
 * What the server knows about a click where no widget measured it (VAST players, partners' OpenRTB
 * ads, push notifications): everything here is measured or signed by us, nothing comes from the query.
 */
export interface ServerClickSignals {
  userAgent: string;
  /** Milliseconds since the ad was served (its signed ticket). */
  ageMs: number;
  /** Milliseconds since its impression was recorded (pixel, win notice, push delivery); undefined when none was. */
  sinceImpressionMs: number | undefined;
  /** The click comes from the network and browser the ad was served to (true when the ticket knows neither). */
  sameViewer: boolean;
}

export interface ServerClickRule {
  readonly name: string;
  invalid(s: ServerClickSignals): boolean;
}

/** A person needs a moment after an ad appears to click it. */
export const MIN_CLICK_AFTER_IMPRESSION_MS = 1_000;

export const SERVER_CLICK_RULES: readonly ServerClickRule[] = [
  { name: 'bot_user_agent', invalid: (s) => isBotUserAgent(s.userAgent) },
  // A click can only follow an impression of the same ad.
  { name: 'no_impression', invalid: (s) => s.sinceImpressionMs === undefined },
  { name: 'too_fast', invalid: (s) => (s.sinceImpressionMs ?? 0) < MIN_CLICK_AFTER_IMPRESSION_MS },
  { name: 'other_viewer', invalid: (s) => !s.sameViewer },
  { name: 'expired', invalid: (s) => s.ageMs > 86_400_000 },
];

export function serverClickVerdict(
  s: ServerClickSignals,
  rules: readonly ServerClickRule[] = SERVER_CLICK_RULES,
): string | undefined {
  return rules.find((r) => r.invalid(s))?.name;
}
