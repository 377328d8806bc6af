import type { AdsTxtStatus } from '@adnet/schemas/publisher';
import type { FetchFailure, SafeFetchOptions } from './safe-fetch.ts';
import { safeGet } from './safe-fetch.ts';
import { onSite } from './site-verifier.ts';

export const ADS_TXT_PATH = '/ads.txt';

/** The first three fields of an ads.txt record, as compared: domain lower-case, account id as written, relationship upper-case. */
function recordKey(line: string): string | undefined {
  const data = line.split('#')[0]?.trim() ?? '';
  // Variables (`contact=`, `subdomain=`) and blank lines are no records.
  if (data === '' || /^[a-z]+=/i.test(data)) return undefined;
  const fields = data.split(',').map((f) => f.trim());
  if (fields.length < 3) return undefined;
  return `${fields[0]?.toLowerCase()},${fields[1]},${fields[2]?.toUpperCase()}`;
}

/** True when the ads.txt text holds a record whose domain, account id and relationship are those of `line`. */
export function adsTxtHasLine(text: string, line: string): boolean {
  const want = recordKey(line);
  if (!want) return false;
  return text.split(/\r\n|\r|\n/).some((l) => recordKey(l) === want);
}

export type AdsTxtCheck = { status: AdsTxtStatus; reason?: FetchFailure; detail?: string };

/**
 * Whether the site's `/ads.txt` lists our line: https first, then http, with the fetcher and rules of site
 * verification (public addresses only, checked on the connection; the time limit; redirects only within the site
 * and its `www.`). A file that answers (any status) is read: a 404 or a file without the line is `missing`; a
 * site that cannot be fetched at all is `unreachable` (its reason and detail for the log, never the publisher).
 */
export async function checkAdsTxt(domain: string, line: string, o: SafeFetchOptions): Promise<AdsTxtCheck> {
  const fetchOptions = { ...o, allowUrl: onSite(domain, o) };
  const failures: string[] = [];
  let reason: FetchFailure | undefined;
  for (const scheme of ['https', 'http'] as const) {
    const got = await safeGet(`${scheme}://${domain}${ADS_TXT_PATH}`, fetchOptions);
    if (!got.ok) {
      failures.push(`${scheme}: ${got.detail}`);
      reason = got.reason;
      // The name itself is refused: plain http would reach the same addresses.
      if (got.reason === 'refused_address') break;
      continue;
    }
    const found = got.status < 400 && adsTxtHasLine(got.body, line);
    return { status: found ? 'found' : 'missing' };
  }
  return { status: 'unreachable', reason, detail: failures.join('; ') };
}
