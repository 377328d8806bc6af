// A popunder zone's widget: it shows nothing on the page. Its pop is asked for ahead of time and kept for
// KEEP_MS, so that the visitor's click can open it at once: `window.open` must run inside the click's user
// activation, which an answer still on its way would have lost. It counts only once the window is open.

import type { PopAnswer, ZoneConfig } from '@adnet/schemas/widget';

type Pop = PopAnswer['pop'];

/** How long an answer is used; then it is asked for again (its ticket's beacon stays good for ten minutes). */
export const KEEP_MS = 60_000;
/** At most this many answers per page view: a tab left open all day does not run an auction a minute forever. */
const MAX_ASKS = 30;

export interface PopDeps {
  /** One answer of /imp for the zone, undefined for none. */
  ask: () => Promise<Pop | undefined>;
  /** The window opened: keep the zone's cap in the page's storage and fire the beacon that counts the pop. */
  opened: (pop: Pop) => void;
}

/**
 * Whether this document may open pops: the top window, a frame of the same origin as the top (the site's own),
 * or a sandboxed frame (an opaque origin, as the cabinet's preview is), whose embedder chose to allow it
 * pop-ups. A frame of another origin, where the site would be someone else's page, opens nothing.
 */
export function mayPop(w: Window = window): boolean {
  if (w.top === w || w.location.origin === 'null') return true;
  try {
    return w.top?.location.origin === w.location.origin;
  } catch {
    return false;
  }
}

/**
 * Waits for the visitor's click on this document (clicks inside frames never reach it, nor are those of our own
 * ads taken) and opens the kept pop in it: once per page view, on the first click (`first_click`) or on any until
 * one opens (`any_click`). A window the browser refused (`window.open` answered null) is not counted.
 */
export function armPop(settings: NonNullable<ZoneConfig['pop']>, deps: PopDeps): void {
  if (!mayPop()) return;
  let kept: { pop: Pop; at: number } | undefined;
  let asking = false;
  let asks = 0;
  let done = false;
  const finish = () => {
    done = true;
    document.removeEventListener('click', onClick, true);
    document.removeEventListener('visibilitychange', refresh);
  };
  const fresh = () => kept !== undefined && Date.now() - kept.at < KEEP_MS;
  function refresh(): void {
    if (done || asking || fresh() || document.visibilityState === 'hidden') return;
    if (asks++ >= MAX_ASKS) return finish();
    asking = true;
    void deps
      .ask()
      .catch(() => undefined)
      .then((pop) => {
        asking = false;
        // No pop for this visitor now (none fills the zone, or it had its pop): none this page view.
        if (!pop) return finish();
        kept = { pop, at: Date.now() };
        setTimeout(refresh, KEEP_MS);
      });
  }
  function onClick(e: MouseEvent): void {
    if (!e.isTrusted || (e.target instanceof Element && e.target.closest('[data-adnet-zone]'))) return;
    const pop = fresh() ? kept?.pop : undefined;
    const w = pop ? window.open(pop.url, '_blank', settings.newTab ? '' : 'popup') : null;
    if (pop && w) {
      finish();
      deps.opened(pop);
      try {
        // As rel=noopener would: the landing gets no handle on the publisher's page.
        w.opener = null;
        if (!settings.newTab) {
          // Behind the page: browsers may keep the new window in front regardless.
          w.blur();
          window.focus();
        }
      } catch {
        // the window is open and counted; where it sits is cosmetic
      }
      return;
    }
    if (settings.trigger === 'first_click') finish();
    else refresh();
  }
  document.addEventListener('click', onClick, true);
  document.addEventListener('visibilitychange', refresh);
  refresh();
}
