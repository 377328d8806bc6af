import { createHash } from 'node:crypto';
import type { EngineContext } from '../../context.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { DEFAULT_PUSH_PROMPT, PUSH_WORKER_PATH } from '@adnet/schemas/push';
import { DEFAULT_AD_LABEL, POP_DEFAULTS, interstitialSettingsOf } from '@adnet/schemas/publisher';
import type { StoredZone } from '@adnet/schemas/publisher';
import type { ZoneConfig } from '@adnet/schemas/widget';

/** A push zone's prompt moment, our key and the worker's path on the publisher's site. */
function pushSettings(z: StoredZone, vapidKey: string): ZoneConfig['push'] {
  const p = z.push_prompt ?? DEFAULT_PUSH_PROMPT;
  return { on: p.on, delaySec: p.delay_s ?? null, vapidKey, worker: PUSH_WORKER_PATH };
}

const interstitialOf = (z: StoredZone) => interstitialSettingsOf(z.format, z);
/** An interstitial zone's delay and close delay, its defaults where the zone was stored without them. */
function interstitialSettings(z: StoredZone): ZoneConfig['interstitial'] {
  const s = interstitialOf(z);
  return { delaySec: s.interstitial_delay_sec ?? 0, closeAfterSec: s.interstitial_close_after_sec ?? 0 };
}
/** A popunder zone's trigger and window, the defaults where a zone kept before them has none. */
const popSettings = (z: StoredZone): ZoneConfig['pop'] => ({
  trigger: z.pop_trigger ?? POP_DEFAULTS.pop_trigger,
  newTab: z.pop_new_tab ?? POP_DEFAULTS.pop_new_tab,
});

/**
 * GET /w/<subid>.js: the widget with the zone's settings baked in, cacheable
 * with an ETag. An unknown, paused or not-yet-approved zone gets a script that
 * does nothing, so the host page never sees an error.
 */
export function widgetScriptRoute(ctx: EngineContext) {
  const cache = new Map<string, { body: string; etag: string }>();
  return (req: EngineRequest): EngineReply => {
    const subid = /^([A-Za-z0-9]{1,32})\.js$/.exec(req.params[0] ?? '')?.[1] ?? '';
    const entry = ctx.index()?.zones.get(subid);
    const key = entry ? `${subid}|${entry.zone.updated_at}|${entry.serving}` : `none|${subid}`;
    let hit = cache.get(key);
    if (!hit) {
      const z = entry?.zone;
      const body =
        z && entry.serving
          ? ctx.widget.zoneScript(ctx.widget.bundle, {
              base: ctx.baseUrl,
              subid: z.subid,
              format: z.format,
              w: z.banner_width,
              h: z.banner_height,
              corner: z.fv_corner,
              delaySec: z.fv_delay_sec,
              // The widget's own cap (localStorage, per zone): a popunder's pop cap, an interstitial's, a video's.
              capHours:
                z.format === 'popunder'
                  ? (z.pop_freq_cap_hours ?? POP_DEFAULTS.pop_freq_cap_hours)
                  : z.format === 'interstitial'
                    ? interstitialOf(z).interstitial_freq_cap_hours
                    : z.fv_freq_cap_hours,
              label: z.ad_label ?? DEFAULT_AD_LABEL,
              push: z.format === 'push' ? pushSettings(z, ctx.push.vapidPublicKey) : null,
              pop: z.format === 'popunder' ? popSettings(z) : null,
              interstitial: z.format === 'interstitial' ? interstitialSettings(z) : null,
            })
          : `/* adnet: zone ${subid} is not serving */\n`;
      hit = { body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"` };
      if (cache.size > 10_000) cache.clear();
      cache.set(key, hit);
    }
    const headers = {
      'content-type': 'application/javascript; charset=utf-8',
      'cache-control': 'public, max-age=300',
      etag: hit.etag,
      'access-control-allow-origin': '*',
    };
    if (req.headers['if-none-match'] === hit.etag) return { status: 304, headers };
    return { status: 200, headers, body: hit.body };
  };
}
