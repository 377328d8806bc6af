import type { Creative } from '@adnet/schemas/api';
import { inertJson } from '@adnet/schemas/inert-json';
import { isSafeHttpUrl } from '@adnet/schemas/url';
import { esc } from './ad-markup.ts';
import { nativeAssetsFor } from './native-request.ts';
import type { NativeAsset } from './native-request.ts';

// The markup of our own ads answered to Prebid.js (POST /hb/bid). Prebid renders the winner's markup in an iframe;
// the render beacon (/b/<ticket>) fires from there when the markup runs, which is the impression (counted and charged
// once, as for the widget). Clicks carry the widget's click signals (ttc, x, y, focus, fp), so a click on a header
// bidding ad is judged by the same rules as one on the widget's ad (docs/browser-endpoints.md).

export interface HbLinks {
  /** `/c/<ticket>/<tracking token>`. */
  clickUrl: string;
  /** `/b/<ticket>`. */
  beaconUrl: string;
}

const url = (u: string | null): string => (u && isSafeHttpUrl(u) ? u : '');

/**
 * In the ad's frame, after its link: sends the render beacon at once (keepalive, no credentials), stamps the link
 * with the click signals at the click, and holds a click that comes while the beacon is unanswered (at most a
 * second) so that it does not overtake it, as the widget does (widget/src/widget.ts). The fingerprint is the
 * widget's kind: coarse, cookie-less, enough to group clicks.
 */
const SCRIPT = `(function(s,c,b){var a=s.previousElementSibling,t=performance.now(),n=navigator,o=false,d=document;
var x=[n.userAgent,n.language,screen.width,screen.height,screen.colorDepth,new Date().getTimezoneOffset()].join('|'),h=2166136261;
for(var i=0;i<x.length;i++){h^=x.charCodeAt(i);h=Math.imul(h,16777619)}
var f='h'+('000000'+(h>>>0).toString(36)).slice(-7)+x.length.toString(36);
var p=fetch(b,{keepalive:true,mode:'no-cors',credentials:'omit'}).then(function(){o=true},function(){o=true});
function m(e){var r=a.getBoundingClientRect();a.href=c+'?ttc='+Math.round(performance.now()-t)+'&x='+Math.max(0,Math.round(e.clientX-r.left))+'&y='+Math.max(0,Math.round(e.clientY-r.top))+'&focus='+(d.hasFocus()?1:0)+'&fp='+f}
a.addEventListener('mousedown',m);
a.addEventListener('click',function(e){m(e);if(o)return;e.preventDefault();var u=a.href,w=window.open('','_blank');if(w)w.opener=null;
Promise.race([p,new Promise(function(r){setTimeout(r,1000)})]).then(function(){if(w)w.location.href=u})});
})(document.currentScript,`;

/** A banner: the linked image, then the script that fires the render beacon and stamps clicks. */
export function bannerHbAdm(c: Creative, links: HbLinks): string {
  const img = `<img src="${esc(url(c.image_url))}" width="${c.image_width ?? 0}" height="${c.image_height ?? 0}" alt="${esc(c.title ?? '')}" style="border:0;display:block">`;
  return (
    `<a href="${esc(links.clickUrl)}" target="_blank" rel="noopener" style="display:block">${img}</a>` +
    `<script>${SCRIPT}${inertJson(links.clickUrl)},${inertJson(links.beaconUrl)});</script>`
  );
}

/**
 * A Native 1.2 response: the assets the request asked for that the creative fills (else title 1, image 2, body 3,
 * call to action 4), the render beacon as the impression event tracker (and in `imptrackers`), the click link.
 * Prebid's native renderer fires the trackers when it shows the ad.
 */
export function nativeHbAdm(c: Creative, links: HbLinks, requested: readonly NativeAsset[] | undefined): string {
  let assets: unknown[];
  if (requested) assets = nativeAssetsFor(c, requested);
  else {
    assets = [{ id: 1, title: { text: c.title ?? '' } }];
    if (url(c.image_url)) assets.push({ id: 2, img: { url: c.image_url, w: c.image_width, h: c.image_height } });
    if (c.body) assets.push({ id: 3, data: { value: c.body } });
    if (c.cta_text) assets.push({ id: 4, data: { value: c.cta_text } });
  }
  return inertJson({
    ver: '1.2',
    assets,
    link: { url: links.clickUrl },
    imptrackers: [links.beaconUrl],
    eventtrackers: [{ event: 1, method: 1, url: links.beaconUrl }],
  });
}

/** A partner's banner: its markup, then our impression tracker as a pixel, which loads when Prebid renders it. */
export const partnerBannerHbAdm = (adm: string, trackerUrl: string): string =>
  `${adm}<img src="${esc(trackerUrl)}" width="1" height="1" alt="" style="display:none">`;
