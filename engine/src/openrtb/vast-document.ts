import type { Creative } from '@adnet/schemas/api';
import { videoDurationOf } from '@adnet/schemas/api';
import type { VastVersion } from '@adnet/schemas/vast';
import type { MarkupLinks } from './ad-markup.ts';
import { cdata, esc, url, vastDuration } from './ad-markup.ts';
import { errorTag, impressionTag, trackingEventsTag, vastRoot, videoClicksTag } from './vast-trackers.ts';

// Our inline video ad in the VAST version the player asked for, each in the order its IAB schema requires
// (vast_2.0.1.xsd, vast3_draft.xsd, vast4.xsd). The trackers are the same in every version
// (vast-trackers.ts); what differs:
// - 4.0: the VAST namespace; InLine is AdSystem, Error, Impression, ViewableImpression, AdTitle, Creatives;
//   the Creative carries UniversalAdId; Linear is TrackingEvents, Duration, MediaFiles, VideoClicks.
// - 3.0 and 2.0: no namespace, no ViewableImpression and no UniversalAdId (the creative's id is the
//   Creative's AdID attribute); InLine is AdSystem, AdTitle, Error (at most one), Impression, Creatives;
//   Linear is Duration, TrackingEvents, VideoClicks, MediaFiles. 3.0's Icons, skipoffset and progress
//   events are not written (our ads have none), nor 4.0's AdVerifications or Mezzanine.

/** The media file's size, by the creative's orientation. */
function mediaFileTag(c: Creative): string {
  const [w, h] = c.orientation === 'vertical' ? [720, 1280] : c.orientation === 'square' ? [1080, 1080] : [1280, 720];
  return `<MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="${w}" height="${h}">${cdata(url(c.video_url))}</MediaFile></MediaFiles>`;
}

function inline4(c: Creative, links: MarkupLinks, adId: string): string {
  const track = links.trackingUrl;
  return (
    `${vastRoot('4.0')}<Ad id="${esc(adId)}"><InLine><AdSystem>adnet</AdSystem>` +
    (track ? errorTag(track('error')) : '') +
    impressionTag(links.impressionUrl, 'imp') +
    (track
      ? `<ViewableImpression id="viewable"><Viewable>${cdata(track('viewable'))}</Viewable></ViewableImpression>`
      : '') +
    `<AdTitle>${esc(c.title ?? 'Ad')}</AdTitle>` +
    `<Creatives><Creative id="${c.id}"><UniversalAdId idRegistry="adnet" idValue="${c.id}">${c.id}</UniversalAdId><Linear>` +
    (track ? trackingEventsTag(track) : '') +
    `<Duration>${vastDuration(videoDurationOf(c))}</Duration>${mediaFileTag(c)}${videoClicksTag(links.clickUrl)}` +
    `</Linear></Creative></Creatives></InLine></Ad></VAST>`
  );
}

/** 2.0 and 3.0 share the InLine's shape for what we write. */
function inlineLegacy(c: Creative, links: MarkupLinks, adId: string, version: '2.0' | '3.0'): string {
  const track = links.trackingUrl;
  return (
    `${vastRoot(version)}<Ad id="${esc(adId)}"><InLine><AdSystem>adnet</AdSystem>` +
    `<AdTitle>${esc(c.title ?? 'Ad')}</AdTitle>` +
    (track ? errorTag(track('error')) : '') +
    impressionTag(links.impressionUrl, 'imp') +
    `<Creatives><Creative id="${c.id}" AdID="${c.id}"><Linear>` +
    `<Duration>${vastDuration(videoDurationOf(c))}</Duration>` +
    (track ? trackingEventsTag(track) : '') +
    `${videoClicksTag(links.clickUrl)}${mediaFileTag(c)}` +
    `</Linear></Creative></Creatives></InLine></Ad></VAST>`
  );
}

/** A VAST inline ad with one progressive MP4 file, in `version` (4.0 unless the player asked for another). */
export function vastAdm(c: Creative, links: MarkupLinks, adId: string, version: VastVersion = '4.0'): string {
  return version === '4.0' ? inline4(c, links, adId) : inlineLegacy(c, links, adId, version);
}
