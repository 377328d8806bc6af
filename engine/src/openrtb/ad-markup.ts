import type { Creative } from '@adnet/schemas/api';

const esc = (s: string): string => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);

export interface MarkupLinks {
  /** Click tracking: `/c/<impression id>/<tracking token>`, which redirects to the landing URL. */
  clickUrl: string;
  /** VAST impression pixel. */
  impressionUrl: string;
  /** VAST `/t/vast/<event>/<ticket>` base: `<event>` is replaced per tracking event (video only). */
  trackingUrl?: (event: string) => string;
}

/** The playback events a VAST ad reports, as /t/vast/<event>/... pixels. */
export const VAST_EVENTS = ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'] as const;

/** Banner markup: a linked image. */
export function bannerAdm(c: Creative, links: MarkupLinks): string {
  const alt = esc(c.title ?? '');
  return `<a href="${esc(links.clickUrl)}" target="_blank" rel="noopener"><img src="${esc(c.image_url ?? '')}" width="${c.image_width ?? 0}" height="${c.image_height ?? 0}" alt="${alt}" style="border:0"></a>`;
}

/** OpenRTB Native 1.2 response: title (asset 1), image (2), body (3), call to action (4). */
export function nativeAdm(c: Creative, links: MarkupLinks): string {
  const assets: unknown[] = [{ id: 1, title: { text: c.title ?? '' } }];
  if (c.image_url) assets.push({ id: 2, img: { url: c.image_url, w: c.image_width, h: c.image_height } });
  if (c.body) assets.push({ id: 3, data: { value: c.body } });
  if (c.cta_text) assets.push({ id: 4, data: { value: c.cta_text } });
  return JSON.stringify({ native: { ver: '1.2', assets, link: { url: links.clickUrl }, imptrackers: [links.impressionUrl] } });
}

/** The IAB VAST 4.0 namespace: without it a document does not validate against the schema. */
export const VAST_NS = 'http://www.iab.com/VAST';

/** A VAST 4.0 inline ad with one progressive MP4 file, in the element order the IAB schema requires. */
export function vastAdm(c: Creative, links: MarkupLinks, adId: string): string {
  const [w, h] = c.orientation === 'vertical' ? [720, 1280] : c.orientation === 'square' ? [1080, 1080] : [1280, 720];
  return (
    `<?xml version="1.0" encoding="UTF-8"?><VAST version="4.0" xmlns="${VAST_NS}"><Ad id="${esc(adId)}"><InLine>` +
    `<AdSystem>adnet</AdSystem>` +
    // No [ERRORCODE] macro: brackets are not valid in the schema's anyURI; our widget adds ?code=.
    (links.trackingUrl ? `<Error><![CDATA[${links.trackingUrl('error')}]]></Error>` : '') +
    `<Impression id="imp"><![CDATA[${links.impressionUrl}]]></Impression>` +
    `<AdTitle>${esc(c.title ?? 'Ad')}</AdTitle>` +
    `<Creatives><Creative id="${c.id}"><UniversalAdId idRegistry="adnet" idValue="${c.id}">${c.id}</UniversalAdId><Linear>` +
    (links.trackingUrl
      ? `<TrackingEvents>${VAST_EVENTS.map((e) => `<Tracking event="${e}"><![CDATA[${(links.trackingUrl as (e: string) => string)(e)}]]></Tracking>`).join('')}</TrackingEvents>`
      : '') +
    `<Duration>00:00:30</Duration><MediaFiles>` +
    `<MediaFile delivery="progressive" type="video/mp4" width="${w}" height="${h}"><![CDATA[${c.video_url ?? ''}]]></MediaFile>` +
    `</MediaFiles><VideoClicks><ClickThrough id="click"><![CDATA[${links.clickUrl}]]></ClickThrough></VideoClicks>` +
    `</Linear></Creative></Creatives></InLine></Ad></VAST>`
  );
}
