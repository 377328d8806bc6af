import type { Services } from '../services.ts';
import { safeGet } from '../verify/safe-fetch.ts';

export interface TrackerAnswer {
  ok: boolean;
  /** HTTP status when the tracker answered. */
  status: number | null;
  error: string | null;
}

/** One GET to an advertiser's tracker: private addresses refused, bounded time and size; only 2xx is success. */
export async function callTracker(svc: Services, url: string): Promise<TrackerAnswer> {
  const { postback } = svc.config;
  const result = await safeGet(url, { timeoutMs: postback.timeoutMs, maxBytes: 64 * 1024, maxRedirects: 3, allowLoopback: postback.allowLoopback });
  const ok = result.ok && result.status >= 200 && result.status < 300;
  return { ok, status: result.ok ? result.status : null, error: ok ? null : result.ok ? `HTTP ${result.status}` : result.error };
}
