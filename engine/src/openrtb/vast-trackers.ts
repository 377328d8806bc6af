import type { VastVersion } from '@adnet/schemas/vast';
import { VAST_NS, cdata } from './ad-markup.ts';

// The parts every VAST document of ours shares, whatever its version and whether inline or a wrapper: the
// root, and the trackers (impression, error, playback events, click). The URLs are the same in every
// version, so a pixel counts exactly as it does in 4.0 (count-ticket.ts); only where the element goes and
// which attributes it may carry differ, as each version's IAB schema says.

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';
// Built once: the root's opening tag per version (4.0 alone has a namespace; 2.0 and 3.0 have none).
const ROOT: Record<VastVersion, string> = {
  '2.0': `${PROLOG}<VAST version="2.0">`,
  '3.0': `${PROLOG}<VAST version="3.0">`,
  '4.0': `${PROLOG}<VAST version="4.0" xmlns="${VAST_NS}">`,
};
const EMPTY: Record<VastVersion, string> = {
  '2.0': `${PROLOG}<VAST version="2.0"/>`,
  '3.0': `${PROLOG}<VAST version="3.0"/>`,
  '4.0': `${PROLOG}<VAST version="4.0" xmlns="${VAST_NS}"/>`,
};

/** The XML prolog and the root's opening tag of a document in `version`. */
export const vastRoot = (version: VastVersion): string => ROOT[version];

/** The answer without an ad, in `version`: players treat it as no fill. */
export const emptyVastDocument = (version: VastVersion): string => EMPTY[version];

/**
 * The impression pixel. `id` is written where the version's schema allows it: an inline ad's in every
 * version, a wrapper's only in 4.0 (2.0 and 3.0 type a wrapper's Impression as a bare URI).
 */
export const impressionTag = (url: string, id: string | undefined): string =>
  id === undefined ? `<Impression>${cdata(url)}</Impression>` : `<Impression id="${id}">${cdata(url)}</Impression>`;

/** The error pixel; no [ERRORCODE] macro (brackets are not valid in the schemas' anyURI): our widget adds ?code=. */
export const errorTag = (url: string): string => `<Error>${cdata(url)}</Error>`;

/** The playback events a VAST ad reports, as /t/vast/<event>/... pixels: the same in 2.0, 3.0 and 4.0. */
export const VAST_EVENTS = ['start', 'firstQuartile', 'midpoint', 'thirdQuartile', 'complete'] as const;

/** `<TrackingEvents>` with one `<Tracking>` per playback event. */
export const trackingEventsTag = (trackingUrl: (event: string) => string): string =>
  `<TrackingEvents>${VAST_EVENTS.map((e) => `<Tracking event="${e}">${cdata(trackingUrl(e))}</Tracking>`).join('')}</TrackingEvents>`;

/** `<VideoClicks>` with our click redirect as its one child, the click-through, valid in every version. */
export const videoClicksTag = (clickUrl: string): string =>
  `<VideoClicks><ClickThrough id="click">${cdata(clickUrl)}</ClickThrough></VideoClicks>`;
