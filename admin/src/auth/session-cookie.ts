/**
 * The cabinet's session cookie: the bearer token kept where no script can read it (HttpOnly), sent
 * only to the tRPC door the cabinet uses (Path=/trpc), never on a cross-site request (SameSite=Strict),
 * and only over TLS when the request came over TLS (Secure). API clients keep the Authorization header.
 */
export const SESSION_COOKIE = 'adnet_session';
/** The only path the cabinet calls with its session; ad, tracking and REST paths never see the cookie. */
export const SESSION_COOKIE_PATH = '/trpc';
/**
 * The header the cabinet sends on every call. A cross-site form or image cannot send it, and a cross-origin
 * script can only after a CORS preflight, which the admin never grants.
 */
export const CABINET_HEADER = 'x-adnet-cabinet';

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=${SESSION_COOKIE_PATH}; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Strict${secure ? '; Secure' : ''}`;
}

export function clearedSessionCookie(secure: boolean): string {
  return sessionCookie('', 0, secure);
}

/** The session cookie's value from a Cookie header, if it holds one (the first, as browsers send the most specific first). */
export function readSessionCookie(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const value = part.slice(eq + 1).trim();
    return value === '' ? undefined : value;
  }
  return undefined;
}

/** The facts of a request that decide whether a cookie may stand for the caller. */
export interface RequestSite {
  /** `Sec-Fetch-Site`, which browsers set and page script cannot. */
  fetchSite: string | undefined;
  origin: string | undefined;
  /** The value of CABINET_HEADER. */
  cabinet: string | undefined;
}

/**
 * Why a request that would be authenticated (or signed in) by the cookie is refused, or undefined when it
 * may go on. Every such request carries the cabinet's header; one that changes state must also come from
 * our own origin: `Sec-Fetch-Site: same-origin`, or, from a browser too old to send that, an `Origin`
 * equal to ours. A sibling subdomain is same-site (SameSite lets the cookie through) but not same-origin.
 */
export function cookieRefusal(site: RequestSite, changesState: boolean, ownOrigin: string): string | undefined {
  if (site.cabinet !== '1') return `Requests authenticated by the session cookie must send ${CABINET_HEADER}: 1`;
  if (!changesState) return undefined;
  const sameOrigin = site.fetchSite !== undefined ? site.fetchSite === 'same-origin' : site.origin === ownOrigin;
  return sameOrigin ? undefined : 'Cross-origin requests cannot use the session cookie';
}
