// The publisher's widget: one script per zone, configuration baked in by the engine. It lives inside one
// closure; the only global it touches is `window.adnet`. Every step is guarded: a failing ad must never
// break the host page.

import { isSafeHttpUrl } from '@adnet/schemas/url';
import type { DemandAnswer, FallbackAnswer, PreviewEmpty, ServedAd, ZoneConfig } from '@adnet/schemas/widget';
import { armInterstitial } from './interstitial.ts';
import { askForPush } from './push.ts';
import { consentQuery } from './consent.ts';
import { armPop } from './pop.ts';
import type { PopAnswer } from '@adnet/schemas/widget';

/** A URL from an answer, or '' when it is not plain http(s): nothing else may become a link, a source or a pixel. */
const httpOnly = (u: string | null | undefined): string => (u && isSafeHttpUrl(u) ? u : '');

function fnv1a(text: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h.toString(16).padStart(8, '0');
}

/** A coarse, cookie-less browser fingerprint: enough to group clicks, not to identify a person. */
export function fingerprint(): string {
  const n = navigator;
  const s = screen;
  const parts = [
    n.userAgent,
    n.language,
    s.width,
    s.height,
    s.colorDepth,
    Intl.DateTimeFormat().resolvedOptions().timeZone,
    n.hardwareConcurrency,
    n.platform,
  ];
  return fnv1a(parts.join('|')) + fnv1a(parts.reverse().join('#'));
}

const base64url = (binary: string): string => btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/**
 * The browser's first-party id for frequency caps (the `u` parameter): 128 random bits kept in the host
 * site's localStorage, so the same browser is the same user on that site until its storage is cleared.
 * '' when storage is refused (private modes): then no cap can apply to it.
 */
export function firstPartyId(): string {
  try {
    let id = localStorage.getItem('adnet:uid');
    if (!id || !/^[A-Za-z0-9_-]{22}$/.test(id)) {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      id = base64url(String.fromCharCode(...bytes));
      localStorage.setItem('adnet:uid', id);
    }
    return id;
  } catch {
    return '';
  }
}

/** What the page tells about the visitor, base64url JSON (the `s` parameter). */
export function signals(): string {
  const data = {
    tz: Intl.DateTimeFormat().resolvedOptions().timeZone,
    lang: navigator.language,
    sw: screen.width,
    sh: screen.height,
    touch: 'ontouchstart' in window ? 1 : 0,
    wd: navigator.webdriver ? 1 : 0,
  };
  return base64url(JSON.stringify(data));
}

function capped(cfg: ZoneConfig): boolean {
  if (!cfg.capHours) return false;
  try {
    const last = Number(localStorage.getItem(`adnet:cap:${cfg.subid}`) ?? 0);
    return Date.now() - last < cfg.capHours * 3_600_000;
  } catch {
    return false;
  }
}

function markShown(cfg: ZoneConfig): void {
  try {
    localStorage.setItem(`adnet:cap:${cfg.subid}`, String(Date.now()));
  } catch {
    // storage refused (private mode): the server-side counting still holds
  }
}

/** What the page tells about its visitor, sent with the ad request and again with a click: fingerprint, signals. */
interface VisitorSignals {
  fp: string;
  sig: string;
}

/** A click waits at most this long for its ad's render beacon; then its landing opens anyway. */
const HOLD_CLICK_MS = 1_000;

/**
 * Adds the click signals to the link at the moment of the click: time to click, position, focus. A
 * click counts only once its ad's render beacon has (`not_rendered`); should the click come while the
 * beacon is still unanswered, its window opens at once (within the click, so no popup blocker refuses
 * it) and is sent to the landing once the beacon is answered, rather than let the click overtake it.
 */
function trackClicks(
  link: HTMLAnchorElement,
  clickUrl: string,
  { fp, sig }: VisitorSignals,
  { renderedAt, shown }: { renderedAt: number; shown: Promise<unknown> },
): void {
  let counted = false;
  void shown.then(() => (counted = true));
  const stamp = (e: MouseEvent) => {
    const box = link.getBoundingClientRect();
    const q = new URLSearchParams({
      ttc: String(Math.round(performance.now() - renderedAt)),
      x: String(Math.max(0, Math.round(e.clientX - box.left))),
      y: String(Math.max(0, Math.round(e.clientY - box.top))),
      focus: document.hasFocus() ? '1' : '0',
      fp,
      s: sig,
    });
    link.href = `${clickUrl}?${q.toString()}`;
  };
  link.addEventListener('mousedown', stamp);
  link.addEventListener('click', (e) => {
    stamp(e);
    if (counted) return;
    e.preventDefault();
    const href = link.href;
    const tab = window.open('', '_blank');
    // As rel=noopener would: the landing gets no handle on the publisher's page.
    if (tab) tab.opener = null;
    void Promise.race([shown, new Promise((r) => setTimeout(r, HOLD_CLICK_MS))]).then(() => {
      if (tab) tab.location.href = href;
    });
  });
}

const STYLE = `
:host{all:initial}
.ad{font:14px/1.35 system-ui,sans-serif;color:#222;box-sizing:border-box}
a{color:inherit;text-decoration:none;display:block}
.native{display:flex;gap:10px;max-width:480px;border:1px solid #ddd;border-radius:6px;padding:8px;background:#fff}
.native img{width:96px;height:96px;object-fit:cover;border-radius:4px;flex:none}
.native b{display:block;margin-bottom:4px}
.native small{display:block;margin-top:4px;color:#777;font-size:11px}
.cta{display:inline-block;margin-top:6px;padding:3px 8px;background:#1a73e8;color:#fff;border-radius:4px;font-size:12px}
.toast{position:fixed;z-index:2147483646;right:16px;bottom:16px;width:320px;background:#fff;border:1px solid #ccc;border-radius:8px;padding:10px;box-shadow:0 4px 16px rgba(0,0,0,.2)}
.toast a{display:flex;gap:8px}
.toast img{width:48px;height:48px;border-radius:4px}
.lbl{font:11px/1.5 system-ui,sans-serif;color:#555;margin:2px 0}
.lbl a{display:inline;color:#1a5fb4;text-decoration:underline}
.fv .lbl{margin:0;padding:2px 6px;color:#eee}.fv .lbl a{color:#9cf}
.close{position:absolute;top:2px;right:6px;border:0;background:none;font-size:16px;cursor:pointer;color:#666}
.fv{position:fixed;z-index:2147483646;width:240px;background:#000;border-radius:8px;overflow:hidden;box-shadow:0 4px 16px rgba(0,0,0,.3)}
.fv video{width:100%;display:block}
.br{right:16px;bottom:16px}.bl{left:16px;bottom:16px}.tr{right:16px;top:16px}.tl{left:16px;top:16px}
`;

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Record<string, string> = {},
  text?: string | null,
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text) e.textContent = text;
  return e;
}

/**
 * The label every ad of ours carries (the publisher's wording, `ad_label`; never removed) and its "About this ad"
 * link: who showed the ad and why (GET /about-ad/<ticket>).
 */
function label(cfg: ZoneConfig, ticket: string): HTMLElement {
  const row = el('div', { class: 'lbl', 'data-adnet': 'label' }, `${cfg.label} · `);
  row.appendChild(
    el(
      'a',
      { href: `${cfg.base}/about-ad/${encodeURIComponent(ticket)}`, target: '_blank', rel: 'noopener' },
      'About this ad',
    ),
  );
  return row;
}

function render(root: ShadowRoot, cfg: ZoneConfig, ad: ServedAd, visitor: VisitorSignals): void {
  const c = ad.creative;
  const clickUrl = httpOnly(ad.click_url);
  const imageUrl = httpOnly(c.image_url);
  if (!clickUrl) return;
  const link = el('a', { href: clickUrl, target: '_blank', rel: 'noopener', part: 'ad', 'data-adnet': 'ad' });
  const box = el('div', { class: 'ad' });
  const tag = label(cfg, ad.impression_id);
  if (cfg.format === 'banner') {
    box.appendChild(tag);
    link.appendChild(
      el('img', {
        src: imageUrl,
        width: String(c.image_width ?? cfg.w ?? ''),
        height: String(c.image_height ?? cfg.h ?? ''),
        alt: c.title ?? '',
      }),
    );
    box.appendChild(link);
  } else {
    const native = cfg.format === 'native';
    const card = el('div', { class: native ? 'native' : 'toast' });
    if (imageUrl) card.appendChild(el('img', { src: imageUrl, alt: '' }));
    const text = el('div');
    text.appendChild(el('b', {}, c.title));
    if (c.body) text.appendChild(el('span', {}, c.body));
    if (c.cta_text) text.appendChild(el('span', { class: 'cta' }, c.cta_text));
    // A demand partner's "sponsored by" (its native answer's data type 1), as text like the rest.
    if (c.sponsored_by) text.appendChild(el('small', {}, c.sponsored_by));
    card.appendChild(text);
    if (native) {
      link.appendChild(card);
      box.append(tag, link);
    } else {
      // A toast floats in its corner: the ad's link, its label and its close button inside it, none inside another.
      link.append(...Array.from(card.childNodes));
      const close = el('button', { class: 'close', 'aria-label': 'Close ad' }, '×');
      close.addEventListener('click', () => box.remove());
      card.append(link, tag, close);
      box.appendChild(card);
    }
  }
  root.appendChild(box);
  adShown(cfg, ad, visitor, box, link, clickUrl);
}

/** What follows an ad's render: the zone's cap, the impression, click signals, a partner's pixels, viewability. */
// eslint-disable-next-line @typescript-eslint/max-params -- one call site each in render and the interstitial
function adShown(
  cfg: ZoneConfig,
  ad: ServedAd,
  visitor: VisitorSignals,
  box: Element,
  link: HTMLAnchorElement,
  clickUrl: string,
): void {
  // A preview (the cabinet's, GET /preview): nothing to count, so nothing is fired; its link is the landing itself.
  if (ad.preview) return;
  markShown(cfg);
  // The ad is on the page: that is the impression (nothing is charged for an ad that never got here). Sent in
  // the task that rendered it, so before any click on it can be.
  const shown = beacon(ad.beacon_url);
  trackClicks(link, clickUrl, visitor, { renderedAt: performance.now(), shown });
  // A demand partner's native pixels, once each, after ours; only https ones, telling them no page.
  for (const u of (ad.imp_trackers ?? []).slice(0, 5)) {
    if (!/^https:/.test(u) || !httpOnly(u)) continue;
    const px = new Image();
    px.referrerPolicy = 'no-referrer';
    px.src = u;
  }
  watchViewable(box, () => void beacon(`${ad.beacon_url}?e=viewable`));
}

/** Our ad: in the page, or on an interstitial zone's full-page overlay (interstitial.ts) when its moment comes. */
function showAd(root: ShadowRoot, cfg: ZoneConfig, ad: ServedAd, visitor: VisitorSignals): void {
  if (cfg.format !== 'interstitial') return render(root, cfg, ad, visitor);
  armInterstitial(root, cfg, ad, {
    el,
    httpOnly,
    label: () => label(cfg, ad.impression_id),
    shown: (box, link, clickUrl) => adShown(cfg, ad, visitor, box, link, clickUrl),
  });
}

/**
 * The publisher's own fallback when nothing filled the zone, in a sandboxed iframe: scripts may run and
 * links may open new windows, but without `allow-same-origin` the frame has an opaque origin and can
 * reach neither the host page nor its storage. Banner zones keep their size; others take 300x250.
 */
function renderFallback(root: ShadowRoot, cfg: ZoneConfig, f: FallbackAnswer['fallback']): void {
  const frame = el('iframe', {
    sandbox: 'allow-scripts allow-popups allow-popups-to-escape-sandbox',
    referrerpolicy: 'no-referrer',
    title: 'Advertisement',
    width: String(cfg.w ?? 300),
    height: String(cfg.h ?? 250),
    style: 'border:0;display:block',
    'data-adnet': 'fallback',
  });
  if (f.type === 'html') frame.srcdoc = f.value;
  else if (httpOnly(f.value)) frame.src = f.value;
  else return;
  root.appendChild(frame);
}

/**
 * A demand partner's winning markup, in a sandboxed iframe like the fallback (opaque origin: the
 * partner's script cannot reach the host page, its cookies or its storage; links open new windows).
 * Once the frame is on the page our impression tracker is fired: that is the partner's impression.
 */
function renderDemand(root: ShadowRoot, cfg: ZoneConfig, d: DemandAnswer['demand']): void {
  const frame = el('iframe', {
    sandbox: 'allow-scripts allow-popups allow-popups-to-escape-sandbox',
    referrerpolicy: 'no-referrer',
    title: 'Advertisement',
    width: String(d.w ?? cfg.w ?? 300),
    height: String(d.h ?? cfg.h ?? 250),
    scrolling: 'no',
    style: 'border:0;display:block;overflow:hidden',
    'data-adnet': 'demand',
  });
  frame.srcdoc = d.html;
  root.append(label(cfg, d.impression_id), frame);
  markShown(cfg);
  void beacon(d.beacon_url);
}

/**
 * One of our tracking requests, `keepalive` so that leaving the page does not cancel it; settles once it
 * was answered (our render beacon answers after its impression was counted) or failed.
 */
function beacon(url: string): Promise<unknown> {
  if (!httpOnly(url)) return Promise.resolve();
  return fetch(url, { keepalive: true, mode: 'no-cors', credentials: 'omit' }).catch(() => undefined);
}

/**
 * The MRC rule: at least half of the ad in view for one continuous second (display), or two while
 * playing (video, `ms` 2000), reported once by `report`.
 */
function watchViewable(target: Element, report: () => void, ms = 1_000): void {
  if (typeof IntersectionObserver !== 'function') return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const observer = new IntersectionObserver(
    (entries) => {
      const inView = entries.some((e) => e.isIntersecting && e.intersectionRatio >= 0.5);
      if (inView && timer === undefined) {
        timer = setTimeout(() => {
          observer.disconnect();
          report();
        }, ms);
      } else if (!inView && timer !== undefined) {
        clearTimeout(timer);
        timer = undefined;
      }
    },
    { threshold: [0, 0.5, 1] },
  );
  observer.observe(target);
}

async function floatingVideo(root: ShadowRoot, cfg: ZoneConfig): Promise<void> {
  const uid = firstPartyId();
  const res = await fetch(`${cfg.base}/vast/${cfg.subid}.xml${uid ? `?u=${uid}` : ''}`, { credentials: 'omit' });
  const doc = new DOMParser().parseFromString(await res.text(), 'application/xml');
  const text = (name: string) => httpOnly(doc.getElementsByTagName(name)[0]?.textContent?.trim());
  const media = text('MediaFile');
  if (!media) return;
  const box = el('div', { class: `fv ${cfg.corner ?? 'br'}`, 'data-adnet': 'floating-video' });
  const video = el('video', { src: media, playsinline: '', preload: 'auto' });
  video.muted = true;
  video.autoplay = true;
  const impression = text('Impression');
  let counted = false;
  // The ad counts when it starts playing: the VAST Impression pixel.
  const viewable = text('Viewable');
  video.addEventListener('playing', () => {
    if (counted || !impression) return;
    counted = true;
    void beacon(impression);
    // Viewable video: half in view for two continuous seconds from the start of playback.
    if (viewable) watchViewable(video, () => void beacon(viewable), 2_000);
  });
  // VAST tracking: playback quartiles once each, and the Error URL with code 405 when the file cannot play.
  const tracking = new Map<string, string>();
  for (const t of Array.from(doc.getElementsByTagName('Tracking')))
    tracking.set(t.getAttribute('event') ?? '', httpOnly(t.textContent?.trim()));
  const fire = (url: string | undefined) => {
    if (url) void beacon(url);
  };
  const fired = new Set<string>();
  const once = (event: string) => {
    if (!fired.has(event)) {
      fired.add(event);
      fire(tracking.get(event));
    }
  };
  video.addEventListener('playing', () => once('start'));
  video.addEventListener('timeupdate', () => {
    const p = video.duration ? video.currentTime / video.duration : 0;
    if (p >= 0.25) once('firstQuartile');
    if (p >= 0.5) once('midpoint');
    if (p >= 0.75) once('thirdQuartile');
  });
  video.addEventListener('ended', () => once('complete'));
  const errorUrl = text('Error');
  // 405: the file could not be played.
  video.addEventListener('error', () => fire(errorUrl && `${errorUrl}${errorUrl.includes('?') ? '&' : '?'}code=405`));
  const click = text('ClickThrough');
  if (click) video.addEventListener('click', () => window.open(click, '_blank', 'noopener'));
  const close = el('button', { class: 'close', 'aria-label': 'Close video' }, '×');
  close.style.color = '#fff';
  close.addEventListener('click', () => box.remove());
  // Our impression pixel ends in the ad's ticket (ours, or a partner's `d.` one): its About page.
  box.append(label(cfg, impression.slice(impression.lastIndexOf('/') + 1)), video, close);
  root.appendChild(box);
  markShown(cfg);
  void video.play().catch(() => undefined);
}

/** The zone's ad request, /imp, with what the page tells about its visitor. */
function adUrl(cfg: ZoneConfig, fp = fingerprint(), sig = signals()): string {
  const uid = firstPartyId();
  return `${cfg.base}/imp?z=${encodeURIComponent(cfg.subid)}&fp=${fp}&s=${sig}${uid ? `&u=${uid}` : ''}`;
}

/**
 * With credentials: our cookie (set by advertisers' audience pixels, docs/audiences.md) names the browser to pixel
 * audiences. The engine answers such a request with the page's origin, not `*`. A sandboxed frame (an opaque
 * origin, as the cabinet's live preview is) asks without: its credentialed request found no ad there.
 */
const credentials = (): RequestCredentials => (location.origin === 'null' ? 'omit' : 'include');

/** Asks /imp for the zone's ad, with the page's consent signal once its CMP has given it (consent.ts). */
const askAd = (cfg: ZoneConfig, fp?: string, sig?: string): Promise<Response> =>
  consentQuery().then((consent) => fetch(adUrl(cfg, fp, sig) + consent, { credentials: credentials() }));

export function run(cfg: ZoneConfig, script: HTMLScriptElement | null): void {
  try {
    const ns = ((window as unknown as { adnet?: { zones: Record<string, true> } }).adnet ??= { zones: {} });
    if (ns.zones[cfg.subid] || capped(cfg)) return;
    ns.zones[cfg.subid] = true;
    // A push zone shows nothing on the page: it collects subscribers, whom the engine sends its ads.
    if (cfg.push) return askForPush(cfg, cfg.push);
    // The cabinet's live preview (its snippet carries a token: the cabinet's CSP runs no inline script to set one):
    // an ad that counts nothing, or why none would show.
    const preview = script?.getAttribute('data-adnet-preview');
    const previewUrl =
      preview && `${cfg.base}/preview/${encodeURIComponent(cfg.subid)}?t=${encodeURIComponent(preview)}`;
    // Nor does a popunder zone: its pop opens on the visitor's click (pop.ts). A preview's pop has no beacon and
    // takes no cap.
    if (cfg.pop)
      return armPop(cfg.pop, {
        ask: () =>
          (previewUrl ? fetch(previewUrl, { credentials: 'omit' }) : askAd(cfg)).then(async (r) =>
            r.status === 200 ? ((await r.json()) as Partial<PopAnswer>).pop : undefined,
          ),
        opened: (pop) => {
          if (!pop.beacon_url) return;
          markShown(cfg);
          void beacon(pop.beacon_url);
        },
      });
    const host = document.createElement('div');
    host.setAttribute('data-adnet-zone', cfg.subid);
    // An interstitial covers the page: kept out of the publisher's layout (a transformed ancestor would trap it).
    if (script?.parentNode && cfg.format !== 'interstitial') script.parentNode.insertBefore(host, script.nextSibling);
    else document.body.appendChild(host);
    // Shadow DOM: the ad's styles cannot leak into the page, nor the page's into the ad.
    const root = host.attachShadow({ mode: 'open' });
    root.appendChild(el('style', {}, STYLE));
    if (cfg.format === 'floating_video' || cfg.format === 'video') {
      setTimeout(() => void floatingVideo(root, cfg).catch(() => undefined), (cfg.delaySec ?? 0) * 1000);
      return;
    }
    const fp = fingerprint();
    const sig = signals();
    if (previewUrl) {
      void fetch(previewUrl, { credentials: 'omit' })
        .then((r) => r.json() as Promise<ServedAd | PreviewEmpty>)
        .then((a) =>
          'preview_empty' in a
            ? root.appendChild(el('p', { class: 'ad', 'data-adnet': 'preview-empty' }, a.preview_empty.text))
            : a.preview && showAd(root, cfg, a, { fp, sig }),
        )
        .catch(() => undefined);
      return;
    }
    void askAd(cfg, fp, sig)
      .then(async (r) =>
        r.status === 200 ? ((await r.json()) as ServedAd | FallbackAnswer | DemandAnswer) : undefined,
      )
      .then((ad) => {
        if (!ad) return;
        // A full-page overlay shows our own ad alone: no publisher's fallback, no partner's markup.
        if (cfg.format === 'interstitial') {
          if ('impression_id' in ad) showAd(root, cfg, ad, { fp, sig });
        } else if ('fallback' in ad) renderFallback(root, cfg, ad.fallback);
        else if ('demand' in ad) renderDemand(root, cfg, ad.demand);
        else render(root, cfg, ad, { fp, sig });
      })
      .catch(() => undefined);
  } catch {
    // never break the host page
  }
}
