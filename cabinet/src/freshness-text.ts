import type { Outputs } from './api.ts';

type Freshness = Outputs['stats']['freshness'];

/** "7 minutes" for a lag in seconds, rounded: how far back a person should not trust the totals. */
export function lagWords(seconds: number): string {
  if (seconds < 90) return `${seconds} seconds`;
  const minutes = Math.round(seconds / 60);
  if (minutes < 90) return `${minutes} minutes`;
  return `${Math.round(minutes / 60)} hours`;
}

/** The notice's text when the statistics lag the event stream (GET /api/stats/freshness), else null. */
export function freshnessText(f: Freshness): string | null {
  if (f.state !== 'behind' || f.lag_seconds === null) return null;
  return `Statistics are about ${lagWords(f.lag_seconds)} behind: the newest events are not counted here yet. The figures will catch up; no event is lost.`;
}
