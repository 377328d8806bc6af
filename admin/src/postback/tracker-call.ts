import type { PostbackFailureReason } from '@adnet/schemas/api';
import type { PostbackTarget } from '../domain/postback-rules.ts';
import type { AdminConfig } from '@adnet/schemas/config';
import { FETCH_FAILURES, safeGet } from '../verify/safe-fetch.ts';
import type { FetchFailure } from '../verify/safe-fetch.ts';

/** Why an attempt failed, in the words the advertiser sees (never an address, a DNS answer or a port). */
export const TRACKER_FAILURES: Readonly<Record<PostbackFailureReason, string>> = {
  bad_pattern: 'the postback URL pattern is not an http(s) URL',
  invalid_url: 'the postback URL pattern filled in is not a valid http(s) URL',
  host_not_public: 'the host name does not resolve to a public internet address',
  timeout: FETCH_FAILURES.timeout,
  connection: FETCH_FAILURES.connection,
  bad_redirect: FETCH_FAILURES.bad_redirect,
  too_many_redirects: FETCH_FAILURES.too_many_redirects,
  http_status: 'the tracker answered with a status other than 2xx',
};
export type TrackerFailure = PostbackFailureReason;

/**
 * The reason an advertiser is given for a failed fetch. No DNS answer and a private one are the same
 * to them (`host_not_public`): told apart, they would say which internal names resolve. Postbacks
 * follow redirects to any host, so `other_host` does not occur; were it to, it is a bad redirect.
 */
function trackerReason(reason: FetchFailure): TrackerFailure {
  if (reason === 'refused_address' || reason === 'dns') return 'host_not_public';
  if (reason === 'other_host') return 'bad_redirect';
  return reason;
}

/** An attempt as stored, for an advertiser: reasons recorded before they were merged are shown merged. */
export function attemptForClient<A extends { reason?: string | null; error: string | null }>(
  a: A,
): A & { reason: TrackerFailure | null } {
  const stored = a.reason ?? null;
  if (stored === null) return { ...a, reason: null };
  const reason =
    stored in TRACKER_FAILURES
      ? (stored as TrackerFailure)
      : stored in FETCH_FAILURES
        ? trackerReason(stored as FetchFailure)
        : 'connection';
  return { ...a, reason, error: TRACKER_FAILURES[reason] };
}

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
/** A tracker call reads only the postback settings (time limit, loopback for tests). */
export interface TrackerPorts {
  config: Pick<AdminConfig, 'postback'>;
}

export async function callTracker(svc: TrackerPorts, target: PostbackTarget): Promise<TrackerAnswer> {
  if (!target.ok) return failure(target.reason, target.detail);
  const { postback } = svc.config;
  const result = await safeGet(target.url, {
    timeoutMs: postback.timeoutMs,
    maxBytes: 64 * 1024,
    maxRedirects: 3,
    allowLoopback: postback.allowLoopback,
    userAgent: 'adnet-postback/1.0',
  });
  // The log's detail keeps the fetch's own reason (refused address or DNS), the advertiser gets the merged one.
  if (!result.ok) return failure(trackerReason(result.reason), `${result.reason}: ${result.detail}`);
  if (result.status >= 200 && result.status < 300)
    return { ok: true, status: result.status, reason: null, error: null };
  return failure('http_status', `HTTP ${result.status} from ${new URL(result.finalUrl).host}`, result.status);
}
