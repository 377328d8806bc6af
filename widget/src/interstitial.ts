// An interstitial zone's full-page ad (docs/ad-formats.md, interstitials): fetched with the page like any
// widget ad, shown on the visitor's next navigation within the site (the followed link continues once the ad is
// closed) or after the zone's delay, whichever comes first. A modal dialog: labelled, focus moved in, kept in
// and given back on close; its close control (and Escape) only after the zone's close delay. Kept apart from
// widget.ts, which hands it what counts a rendered ad.

import type { ServedAd, ZoneConfig } from '@adnet/schemas/widget';

/** What widget.ts lends the overlay: its element maker, its URL guard, and what counts an ad on the page. */
export interface OverlayKit {
  el: <K extends keyof HTMLElementTagNameMap>(
    tag: K,
    attrs?: Record<string, string>,
    text?: string | null,
  ) => HTMLElementTagNameMap[K];
  httpOnly: (u: string | null | undefined) => string;
  /** The zone's ad label with its "About this ad" link, as every ad of ours carries. */
  label: () => HTMLElement;
  /** The ad is on the page: the render beacon, the zone's cap, the click signals and viewability, as any widget ad. */
  shown: (box: Element, link: HTMLAnchorElement, clickUrl: string) => void;
}

const STYLE = `
.ov{position:fixed;top:0;right:0;bottom:0;left:0;z-index:2147483647;background:rgba(0,0,0,.82);display:flex;align-items:center;justify-content:center}
.dlg{position:relative;max-width:calc(100vw - 16px);max-height:calc(100vh - 16px);overflow:auto;background:#fff;border-radius:8px;padding:40px 12px 12px;box-sizing:border-box;font:14px/1.35 system-ui,sans-serif;color:#222;outline:0}
.dlg h2{position:absolute;top:12px;left:12px;margin:0;font-size:12px;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:#555}
.dlg img{display:block;max-width:100%;max-height:calc(100vh - 80px);width:auto;height:auto;margin:0 auto}
.dlg .card{max-width:360px}.card b{display:block;margin:8px 0 4px;font-size:18px}
.dlg a:focus-visible,.x:focus-visible{outline:3px solid #1a73e8;outline-offset:2px}
.wait{position:absolute;top:12px;right:12px;font-size:12px;color:#555}
.x{position:absolute;top:4px;right:4px;min-width:36px;min-height:36px;border:0;background:none;font-size:24px;line-height:1;cursor:pointer;color:#222}
`;

/**
 * The link of a click that leaves this page for another of the same site in this tab, or '': a plain left
 * click with no modifier, on a link that opens no other window and downloads nothing, not a jump within the page.
 */
function sameSiteLink(e: MouseEvent): string {
  if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return '';
  const a = e.target instanceof Element ? e.target.closest('a') : null;
  if (!(a instanceof HTMLAnchorElement) || !a.href || a.hasAttribute('download')) return '';
  const target = a.getAttribute('target');
  if (target && target !== '_self') return '';
  let url: URL;
  try {
    url = new URL(a.href);
  } catch {
    return '';
  }
  if (url.origin !== location.origin) return '';
  if (url.pathname === location.pathname && url.search === location.search && url.hash) return '';
  return url.href;
}

/** Waits for the first of the zone's delay and a same-site navigation, then shows `ad` once. */
export function armInterstitial(root: ShadowRoot, cfg: ZoneConfig, ad: ServedAd, kit: OverlayKit): void {
  const s = cfg.interstitial;
  const clickUrl = kit.httpOnly(ad.click_url);
  if (!s || !clickUrl) return;
  let armed = true;
  const show = (then?: () => void) => {
    if (!armed) return;
    armed = false;
    clearTimeout(timer);
    document.removeEventListener('click', onClick, true);
    openOverlay(root, { closeAfterSec: s.closeAfterSec, ad, clickUrl, kit, then });
  };
  // Capture: the page's own handlers (a single-page app's router) must not take the navigation first.
  const onClick = (e: MouseEvent) => {
    const href = sameSiteLink(e);
    if (!href) return;
    e.preventDefault();
    show(() => location.assign(href));
  };
  document.addEventListener('click', onClick, true);
  const timer = setTimeout(() => show(), s.delaySec * 1000);
}

interface Opening {
  closeAfterSec: number;
  ad: ServedAd;
  clickUrl: string;
  kit: OverlayKit;
  /** What closing does after the overlay is gone: the navigation it held back. */
  then: (() => void) | undefined;
}

function openOverlay(root: ShadowRoot, o: Opening): void {
  const { el, httpOnly } = o.kit;
  const c = o.ad.creative;
  const before = document.activeElement;
  const overlay = el('div', { class: 'ov', 'data-adnet': 'interstitial' });
  const dialog = el('div', {
    class: 'dlg',
    role: 'dialog',
    'aria-modal': 'true',
    'aria-labelledby': 'adnet-i-label',
    tabindex: '-1',
  });
  dialog.appendChild(el('h2', { id: 'adnet-i-label' }, 'Advertisement'));
  const link = el('a', { href: o.clickUrl, target: '_blank', rel: 'noopener', part: 'ad', 'data-adnet': 'ad' });
  const image = httpOnly(c.image_url);
  if (o.ad.creative_format === 'native') {
    const card = el('div', { class: 'card' });
    if (image) card.appendChild(el('img', { src: image, alt: '' }));
    card.appendChild(el('b', {}, c.title));
    if (c.body) card.appendChild(el('span', {}, c.body));
    if (c.cta_text) card.appendChild(el('span', { class: 'cta' }, c.cta_text));
    link.appendChild(card);
  } else if (image) {
    const img = el('img', { src: image, alt: c.title || 'Advertisement' });
    if (c.image_width && c.image_height) {
      img.width = c.image_width;
      img.height = c.image_height;
    }
    link.appendChild(img);
  } else return;
  dialog.append(link, o.kit.label());
  const close = el('button', { class: 'x', type: 'button', 'aria-label': 'Close ad' }, '×');
  let closable = false;
  const scroll = document.documentElement.style.overflow;
  const finish = () => {
    overlay.remove();
    document.removeEventListener('keydown', onKey, true);
    document.documentElement.style.overflow = scroll;
    if (before instanceof HTMLElement && before.isConnected) before.focus();
    o.then?.();
  };
  // Escape once the close control is there; Tab cycles within the dialog (the page behind is out of reach).
  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Escape') {
      e.preventDefault();
      if (closable) finish();
    } else if (e.key === 'Tab') {
      e.preventDefault();
      // The ad, its label's "About this ad" link, and the close control once it is there, in the dialog's order.
      const stops = Array.from(dialog.querySelectorAll<HTMLElement>('a[href],button'));
      const at = stops.indexOf(root.activeElement as HTMLElement);
      const next =
        at === -1 ? (e.shiftKey ? stops.length - 1 : 0) : (at + (e.shiftKey ? -1 : 1) + stops.length) % stops.length;
      stops[next]?.focus();
    }
  };
  close.addEventListener('click', finish);
  const wait = el('span', { class: 'wait' });
  const allowClose = () => {
    closable = true;
    wait.remove();
    dialog.appendChild(close);
  };
  let left = Math.max(0, o.closeAfterSec);
  if (left > 0) {
    wait.textContent = `Close in ${left} s`;
    dialog.appendChild(wait);
    const tick = setInterval(() => {
      left--;
      if (left > 0) wait.textContent = `Close in ${left} s`;
      else {
        clearInterval(tick);
        allowClose();
      }
    }, 1000);
  } else allowClose();
  overlay.appendChild(dialog);
  root.append(el('style', {}, STYLE), overlay);
  document.documentElement.style.overflow = 'hidden';
  document.addEventListener('keydown', onKey, true);
  dialog.focus();
  o.kit.shown(dialog, link, o.clickUrl);
}
