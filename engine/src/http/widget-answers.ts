import type { ServedAd } from '@adnet/schemas/widget';
import { beaconLink, clickLink, impressionLink, playbackLink } from '../auction/serve.ts';
import type { Served } from '../auction/serve.ts';
import { demandClickLink } from '../demand/demand-ticket.ts';
import type { PartnerWin } from '../demand/supply.ts';
import { partnerVastVersion, vastWrapper } from '../demand/vast-wrapper.ts';
import type { ZoneEntry } from '../index/engine-index.ts';
import type { VastVersion } from '@adnet/schemas/vast';
import { vastAdm } from '../openrtb/vast-document.ts';
import { emptyVastDocument } from '../openrtb/vast-trackers.ts';
import { json } from './adapt.ts';
import type { EngineReply } from './adapt.ts';

// What /imp and /vast answer (routes/widget-serve.ts, routes/vast-serve.ts), by the ad they serve.

export const CORS = { 'access-control-allow-origin': '*', 'cache-control': 'no-store' };
export const NO_AD: EngineReply = { status: 204, headers: CORS };
const xml = (body: string): EngineReply => ({
  status: 200,
  headers: { ...CORS, 'content-type': 'application/xml; charset=utf-8' },
  body,
});
/** No ad, in the version the player asked for. */
export const emptyVast = (version: VastVersion): EngineReply => xml(emptyVastDocument(version));

/** Our ad for a display zone, as the widget renders it. */
export function ownAdAnswer(baseUrl: string, entry: ZoneEntry, out: Served): EngineReply {
  return json(200, ownAd(entry, out, clickLink(baseUrl, out), beaconLink(baseUrl, out)), CORS);
}

/** Our ad's fields as the widget reads them, with the links it follows and fires (the live preview's are its own). */
export function ownAd(entry: ZoneEntry, out: Served, clickUrl: string, beaconUrl: string): ServedAd {
  const cr = out.candidate.creative;
  const ad: ServedAd = {
    impression_id: out.ticket,
    format: entry.zone.format,
    creative: {
      title: cr.title,
      body: cr.body,
      cta_text: cr.cta_text,
      image_url: cr.image_url,
      image_width: cr.image_width,
      image_height: cr.image_height,
    },
    click_url: clickUrl,
    beacon_url: beaconUrl,
  };
  // An interstitial zone draws a banner's or an interstitial's picture, or a native card: it says which. Set
  // after the literal, so every other zone's answer is built as it was.
  if (entry.zone.format === 'interstitial') ad.creative_format = cr.format;
  return ad;
}

/**
 * A partner's winning ad. A banner: the widget shows its markup in a sandboxed iframe. A Native answer
 * (native zone) or a notification (in-page push zone): its fields in our own ad's shape, which the
 * widget renders with the template it uses for ours (texts as text), its link our partner click link
 * (/c/d.<ticket>/dsp, routes/demand.ts), a native card's image pixels fired by the widget after our
 * tracker. Either way our impression tracker is the beacon, counted once.
 */
export function partnerAnswer(baseUrl: string, entry: ZoneEntry, o: PartnerWin): EngineReply {
  const beacon = `${baseUrl}/openrtb/imptracker/${o.token}`;
  const format = entry.zone.format;
  if (format === 'native' || format === 'in_page_push') {
    const n = o.native;
    const p = o.push;
    // Read and checked when the bid was taken; these zones never show a partner's raw markup.
    const creative: ServedAd['creative'] | undefined = n
      ? {
          title: n.title,
          body: n.text || null,
          cta_text: n.cta || null,
          image_url: n.image,
          image_width: n.imageW ?? null,
          image_height: n.imageH ?? null,
          sponsored_by: n.sponsored || null,
        }
      : // The icon is the toast's image, as our in-page push creatives' image is (https, or none).
        p && {
          title: p.title,
          body: p.text || null,
          cta_text: null,
          image_url: p.icon || null,
          image_width: null,
          image_height: null,
        };
    if (!creative) return NO_AD;
    const ad: ServedAd = {
      impression_id: o.token,
      format,
      creative,
      click_url: demandClickLink(baseUrl, o.token),
      beacon_url: beacon,
      ...(n ? { imp_trackers: n.pixels } : {}),
    };
    return json(200, ad, CORS);
  }
  const z = (n: number | undefined) => (n !== undefined && Number.isInteger(n) && n > 0 && n <= 4000 ? n : null);
  return json(200, { demand: { impression_id: o.token, html: o.adm, w: z(o.w), h: z(o.h), beacon_url: beacon } }, CORS);
}

/**
 * Our ad for a video zone, in the VAST version the player asked for: the player fires the Impression pixel
 * when the ad starts, which is what counts (and charges), the same in every version.
 */
export const ownVideoAnswer = (baseUrl: string, out: Served, version: VastVersion): EngineReply =>
  xml(
    vastAdm(
      out.candidate.creative,
      {
        clickUrl: clickLink(baseUrl, out),
        impressionUrl: impressionLink(baseUrl, out),
        trackingUrl: playbackLink(baseUrl, out),
      },
      out.bidId,
      version,
    ),
  );

/**
 * A partner's video ad: our Wrapper around its markup, carrying our impression tracker, in the partner's VAST
 * version (its markup's, else its `bid.protocol`'s, else the one the player asked for: vast-wrapper.ts).
 */
export const partnerVideoAnswer = (baseUrl: string, o: PartnerWin, asked: VastVersion): EngineReply =>
  xml(
    vastWrapper({
      baseUrl,
      token: o.token,
      adm: o.adm,
      version: partnerVastVersion(o.adm, o.protocol, asked),
    }),
  );
