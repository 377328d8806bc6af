import { z } from 'zod';
import { NO_BID_REASONS } from './events.ts';
import { CAMPAIGN_FORMATS as ZONE_FORMATS, FV_CORNERS, POP_TRIGGERS } from './formats.ts';
import { PUSH_PROMPT_MOMENTS } from './push.ts';

// The widget's contract with the engine. The browser script imports these as
// types only: zod's runtime must never reach a host page (its generated code
// trips strict Content-Security-Policies).

/** A zone's settings, baked into its script by `GET /w/<subid>.js`. */
export const zoneConfigSchema = z.object({
  base: z.string(),
  subid: z.string(),
  format: z.enum(ZONE_FORMATS),
  w: z.number().int().nullable(),
  h: z.number().int().nullable(),
  corner: z.enum(FV_CORNERS).nullable(),
  delaySec: z.number().int().nullable(),
  capHours: z.number().nullable(),
  /** The zone's ad label (the publisher's wording, `ad_label`): shown on every ad the widget renders. */
  label: z.string(),
  /** Push zones: when to ask for permission, our VAPID public key (base64url) and where the site hosts our worker. */
  push: z
    .object({
      on: z.enum(PUSH_PROMPT_MOMENTS),
      delaySec: z.number().int().nullable(),
      vapidKey: z.string(),
      worker: z.string(),
    })
    .nullable()
    .optional(),
  /**
   * Popunder zones: what opens the pop (POP_TRIGGERS) and how (`newTab` true: a new tab in front; false: a
   * window behind the page). The zone's `pop_freq_cap_hours` is `capHours`.
   */
  pop: z
    .object({ trigger: z.enum(POP_TRIGGERS), newTab: z.boolean() })
    .nullable()
    .optional(),
  /**
   * Interstitial zones: seconds before the overlay shows on its own, seconds before its close control appears
   * (`capHours` is the zone's `interstitial_freq_cap_hours`).
   */
  interstitial: z.object({ delaySec: z.number().int(), closeAfterSec: z.number().int() }).nullable().optional(),
});
export type ZoneConfig = z.infer<typeof zoneConfigSchema>;

/**
 * One display ad as `GET /imp` answers it: our campaign's, or a demand partner's Native 1.2 answer on a
 * native zone (then `impression_id` and `beacon_url` are the partner's ticket and our impression
 * tracker, `click_url` our click redirect to the partner's landing), which the widget renders alike.
 */
export const servedAdSchema = z.object({
  /** Signed ticket of the served impression. */
  impression_id: z.string(),
  format: z.enum(ZONE_FORMATS),
  creative: z.object({
    title: z.string().nullable(),
    body: z.string().nullable(),
    cta_text: z.string().nullable(),
    image_url: z.string().nullable(),
    image_width: z.number().int().nullable(),
    image_height: z.number().int().nullable(),
    /** A partner's native "sponsored by" (Native 1.2 data type 1); absent on our campaigns' ads. */
    sponsored_by: z.string().nullable().optional(),
  }),
  /**
   * Interstitial zones: the creative's own format (`banner`, `native` or `interstitial`), so the overlay draws a
   * picture or a card; absent on other zones.
   */
  creative_format: z.enum(ZONE_FORMATS).optional(),
  click_url: z.string(),
  /** Fired by the widget once the ad is rendered (that is what counts and is charged); `?e=viewable` once it has been viewable. */
  beacon_url: z.string(),
  /**
   * A partner's native impression pixels (its `imptrackers` and image `eventtrackers` of impressions,
   * https, at most five): the widget loads each once as an image, right after `beacon_url`.
   */
  imp_trackers: z.array(z.string()).optional(),
  /**
   * `GET /preview/<subid>` (the cabinet's live preview): nothing was counted or held, `beacon_url` is '' and the
   * widget fires nothing; `click_url` opens the landing page without counting a click.
   */
  preview: z.literal(true).optional(),
});
export type ServedAd = z.infer<typeof servedAdSchema>;

/** `GET /imp` when nothing fills a zone whose publisher set a fallback: the widget shows it in a sandboxed iframe. */
export const fallbackAnswerSchema = z.object({
  fallback: z.object({ type: z.enum(['html', 'url']), value: z.string() }),
});
export type FallbackAnswer = z.infer<typeof fallbackAnswerSchema>;

/**
 * `GET /imp` when a demand partner won a banner zone's auction: its markup, which the widget shows in a
 * sandboxed iframe (no `allow-same-origin`: it reaches neither the host page nor its storage), then
 * fires `beacon_url` (our impression tracker, counted once) when it is on the page.
 */
export const demandAnswerSchema = z.object({
  demand: z.object({
    impression_id: z.string(),
    html: z.string(),
    w: z.number().int().nullable(),
    h: z.number().int().nullable(),
    beacon_url: z.string(),
  }),
});
export type DemandAnswer = z.infer<typeof demandAnswerSchema>;

/**
 * `GET /imp` on a popunder zone: the pop the widget opens on the visitor's click, kept for a minute. `url` is the
 * winning campaign's landing with its macros filled (`{click_id}` the pop's click id); `beacon_url` is fired once
 * the window really opened, which alone counts (and charges) the pop.
 */
export const popAnswerSchema = z.object({
  pop: z.object({
    /** Signed ticket of the served pop. */
    impression_id: z.string(),
    url: z.string(),
    beacon_url: z.string(),
  }),
});
export type PopAnswer = z.infer<typeof popAnswerSchema>;

/**
 * `GET /preview/<subid>` when nothing would fill the zone now: the auction's no-bid reason and its words for a
 * publisher (schemas/src/no-bid-words.ts), which the widget shows inside the preview frame.
 */
export const previewEmptySchema = z.object({
  preview_empty: z.object({ reason: z.enum(NO_BID_REASONS), text: z.string() }),
});
export type PreviewEmpty = z.infer<typeof previewEmptySchema>;
