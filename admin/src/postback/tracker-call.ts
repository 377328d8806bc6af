import type { PostbackTarget } from '../domain/postback-rules.ts';
import type { Services } from '../services.ts';
import { FETCH_FAILURES, safeGet } from '../verify/safe-fetch.ts';

/** Why an attempt failed, in the words the advertiser sees (never an address, a DNS answer or a port). */
export const TRACKER_FAILURES = {
  ...FETCH_FAILURES,
  bad_pattern: 'the postback URL pattern is not an http(s) URL',
  invalid_url: 'the postback URL pattern filled in is not a valid http(s) URL',
  http_status: 'the tracker answered with a status other than 2xx',
} as const;
export type TrackerFailure = keyof typeof TRACKER_FAILURES;

export type TrackerAnswer =
  | { ok: true; status: number; reason: null; error: null }
  /** `detail` (what was resolved, refused or answered) is for the log only. */
  | { ok: false; status: number | null; reason: TrackerFailure; error: string; detail: string };

const failure = (reason: TrackerFailure, detail: string, status: number | null = null): TrackerAnswer => ({
  ok: false,
  status,
  reason,
  error: TRACKER_FAILURES[reason],
  detail,
});

/**
 * One GET to an advertiser's tracker: public addresses only, bounded time (redirects included) and
 * size; only 2xx is success. It never throws: a bad pattern or any network failure is an answer.
 */
export async function callTracker(svc: Services, target: PostbackTarget): Promise<TrackerAnswer> {
  if (!target.ok) return failure(target.reason, target.detail);
  const { postback } = svc.config;
  const result = await safeGet(target.url, {
    timeoutMs: postback.timeoutMs,
    maxBytes: 64 * 1024,
    maxRedirects: 3,
    allowLoopback: postback.allowLoopback,
    userAgent: 'adnet-postback/1.0',
  });
  if (!result.ok) return failure(result.reason, result.detail);
  if (result.status >= 200 && result.status < 300) return { ok: true, status: result.status, reason: null, error: null };
  return failure('http_status', `HTTP ${result.status} from ${new URL(result.finalUrl).host}`, result.status);
}
