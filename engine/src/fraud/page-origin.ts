/**
 * The host of the page a browser says it is on: `Origin` (every cross-origin fetch carries it),
 * else `Referer`. Undefined when it says nothing usable ('null' comes from sandboxed frames and
 * local files, and a referrer policy may strip both): absence is not evidence, a wrong host is.
 */
export function pageHostOf(origin: string | undefined, referer: string | undefined): string | undefined {
  return hostOf(origin) ?? hostOf(referer);
}

// Browsers write both headers as absolute URLs with an ASCII (punycode) host: a pattern reads the host
// at a fraction of URL parsing's cost on the ad path. Anything else (no scheme, userinfo) says nothing.
const HOST = /^https?:\/\/([A-Za-z0-9.-]+)(?::\d+)?(?:[/?#]|$)/;

function hostOf(value: string | undefined): string | undefined {
  const host = value ? HOST.exec(value)?.[1] : undefined;
  return host ? host.toLowerCase() : undefined;
}

/** The page is on the site: its domain, or any subdomain of it (www. included either way). */
export function pageOnSite(host: string, siteDomain: string): boolean {
  const domain = siteDomain.toLowerCase().replace(/^www\./, '');
  return host === domain || host.endsWith(`.${domain}`);
}
