import { parse } from 'tldts';

/**
 * The `source` dimension of the statistics (docs/events-and-stats.md#sources): where an ad ran, as a
 * buyer names a placement. Our publishers' traffic: the registrable domain of the zone's site. Exchange
 * traffic: the registrable domain of `site.domain`, or the app's store id (`app.bundle`, else the
 * registrable domain of `app.domain`). '' when the request says nothing; `other` for what is not a
 * plausible name, and for new names past the hourly cap (SourceNames), so the dimension stays bounded.
 */
export const SOURCE_OTHER = 'other';
/** Longer names are junk or an attempt to bloat the statistics: `other`. */
export const MAX_SOURCE_LENGTH = 64;
/** Store ids: `com.example.app` (Android), `id123456789` or `123456789` (iOS), `B00ABC` (Amazon); lower-cased. */
const BUNDLE = /^[a-z0-9][a-z0-9._-]*$/;

/**
 * A host or URL as its registrable domain (`news.example.co.uk` is `example.co.uk`; private suffixes
 * count, so `a.blogspot.com` stays itself), an IP address or single-label host as it is, '' when absent,
 * `other` when it is not a host name.
 */
export function domainSource(raw: string | undefined): string {
  if (raw === undefined) return '';
  const text = raw.trim();
  if (text === '') return '';
  if (text.length > 253) return SOURCE_OTHER;
  const p = parse(text, { allowPrivateDomains: true });
  const name = p.domain ?? (p.isIp || (p.hostname !== null && !p.hostname.includes('.')) ? p.hostname : null);
  return name && name.length <= MAX_SOURCE_LENGTH ? name.toLowerCase() : SOURCE_OTHER;
}

/** An app's store id, lower-cased; '' when absent, `other` when it is not one. */
export function bundleSource(raw: string | undefined): string {
  if (raw === undefined || raw.trim() === '') return '';
  const b = raw.trim().toLowerCase();
  return b.length <= MAX_SOURCE_LENGTH && BUNDLE.test(b) ? b : SOURCE_OTHER;
}

/** What an OpenRTB request says it is shown in: a site's domain, or an app (bundle first). */
export interface ExchangePlacement {
  site?: { domain?: string | undefined } | undefined;
  app?: { bundle?: string | undefined; domain?: string | undefined } | undefined;
}

export function exchangeSource(r: ExchangePlacement): string {
  if (r.app) return bundleSource(r.app.bundle) || domainSource(r.app.domain);
  return domainSource(r.site?.domain);
}

/**
 * The sources of exchange traffic, bounded: at most `maxPerHour` distinct names per engine per clock hour
 * (newer ones are `other` until the hour turns), so a partner sending a fresh domain with every request
 * adds at most that many rows per hour and dimension combination to the hourly statistics. Names are
 * memoised per raw value: the hot path parses each domain once an hour.
 */
export class SourceNames {
  private hour = -1;
  private readonly admitted = new Set<string>();
  /** Raw `site.domain` to name, and (apps, rarer) a key of bundle and domain to name. */
  private readonly sites = new Map<string, string>();
  private readonly apps = new Map<string, string>();

  constructor(private readonly maxPerHour = 10_000) {}

  of(r: ExchangePlacement, ts: number): string {
    const hour = Math.floor(ts / 3_600_000);
    if (hour !== this.hour) {
      this.hour = hour;
      this.admitted.clear();
      this.sites.clear();
      this.apps.clear();
    }
    // The bundle's length keeps a `|` inside one from making two different apps one key.
    const memo = r.app ? this.apps : this.sites;
    const key = r.app
      ? `${r.app.bundle?.length ?? -1}|${r.app.bundle ?? ''}|${r.app.domain ?? ''}`
      : (r.site?.domain ?? '');
    const known = memo.get(key);
    if (known !== undefined) return known;
    let name = exchangeSource(r);
    if (name !== '' && name !== SOURCE_OTHER && !this.admitted.has(name)) {
      if (this.admitted.size >= this.maxPerHour) name = SOURCE_OTHER;
      else this.admitted.add(name);
    }
    // The memo is bounded too: past a few raw values per admitted name it starts over (names stay admitted).
    if (memo.size >= this.maxPerHour * 4) memo.clear();
    memo.set(key, name);
    return name;
  }
}
