import { createHmac, timingSafeEqual } from 'node:crypto';

export const CONVERSION_STATUSES = ['pending', 'approved', 'rejected'] as const;
export type ConversionStatus = (typeof CONVERSION_STATUSES)[number];

/** HMAC-SHA256 over `<click_id>|<payout>|<status>|<txid>` with the advertiser's postback secret. */
export function postbackSignature(
  secret: string,
  f: { click_id: string; payout: string; status: string; txid: string },
): Buffer {
  return createHmac('sha256', secret).update(`${f.click_id}|${f.payout}|${f.status}|${f.txid}`).digest();
}

/** The signature as sent: hex (any case), or base64 / base64url. Compared in constant time. */
export function signatureMatches(given: string, expected: Buffer): boolean {
  const g = given.trim();
  const candidates: Buffer[] = [];
  if (/^[0-9a-fA-F]{64}$/.test(g)) candidates.push(Buffer.from(g, 'hex'));
  if (/^[A-Za-z0-9+/_-]{43}={0,1}$/.test(g))
    candidates.push(Buffer.from(g.replace(/-/g, '+').replace(/_/g, '/'), 'base64'));
  return candidates.some((c) => c.length === expected.length && timingSafeEqual(c, expected));
}

/**
 * Status moves of a conversion: the same status again is a duplicate (acknowledged, not counted);
 * `pending` may become `approved` or `rejected`; a decided conversion does not change.
 */
export function statusMove(from: ConversionStatus, to: ConversionStatus): 'duplicate' | 'move' | 'refused' {
  if (from === to) return 'duplicate';
  return from === 'pending' ? 'move' : 'refused';
}

/** The advertiser's URL pattern with the spec's macros filled in, each value URL-encoded. */
export function fillPostbackUrl(pattern: string, values: Record<string, string | number>): string {
  return pattern.replace(/\{([a-z_]+)\}/g, (m, name: string) =>
    name in values ? encodeURIComponent(String(values[name])) : m,
  );
}

const httpUrl = (s: string): URL | undefined => {
  try {
    const url = new URL(s);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
};

export type PostbackTarget =
  { ok: true; url: string } | { ok: false; reason: 'bad_pattern' | 'invalid_url'; detail: string };

/**
 * The URL one attempt calls: `bad_pattern` when the pattern is no http(s) URL whatever the values
 * (tried with every macro as `1`), `invalid_url` when only these values make it one no more (an empty
 * host, a port out of range).
 */
export function postbackTarget(pattern: string, values: Record<string, string | number>): PostbackTarget {
  const sample = Object.fromEntries(Object.keys(values).map((k) => [k, 1]));
  if (!httpUrl(fillPostbackUrl(pattern, sample)))
    return { ok: false, reason: 'bad_pattern', detail: `pattern ${JSON.stringify(pattern.slice(0, 300))}` };
  let filled: string;
  try {
    filled = fillPostbackUrl(pattern, values);
  } catch (e) {
    // encodeURIComponent refuses a lone surrogate in a value.
    return { ok: false, reason: 'invalid_url', detail: (e as Error).message };
  }
  const url = httpUrl(filled);
  return url
    ? { ok: true, url: url.href }
    : { ok: false, reason: 'invalid_url', detail: `filled in ${JSON.stringify(filled.slice(0, 300))}` };
}

/**
 * The spec's schedule: attempt n waits DELAYS[n-1] after the event before it (the conversion, then each
 * failed attempt): 5 s, 30 s, 5 min, 30 min, 2 h. Five attempts at most.
 */
export const ATTEMPT_DELAYS_MS = [5_000, 30_000, 300_000, 1_800_000, 7_200_000] as const;
export const MAX_ATTEMPTS = ATTEMPT_DELAYS_MS.length;

/** When attempt `n` (1-based) is due, `now` being the conversion or the failure of attempt n-1; up to 10% jitter. */
export function attemptDueAt(now: number, attempt: number, random = Math.random): number | undefined {
  if (attempt > MAX_ATTEMPTS) return undefined;
  return now + Math.round((ATTEMPT_DELAYS_MS[attempt - 1] as number) * (1 + random() * 0.1));
}
