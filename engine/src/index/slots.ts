import type { Creative } from '@adnet/schemas/api';
import type { Imp } from '@adnet/schemas/openrtb';

// A slot names what can fill an impression; creatives are indexed under the
// slot they fill and impressions look up the slots they accept.

/** Popunder and direct-link ads are both a landing page opened whole: either fills a pop zone of either kind. */
export const POP_SLOT = 'pop';
/** Interstitial zones: interstitial campaigns' creatives, and those of banner and native campaigns that opted in. */
export const INTERSTITIAL_SLOT = 'interstitial';

/** The slot a format fills: banners by exact size; both video formats answer video impressions. */
export function slotFor(format: Creative['format'], width: number | null, height: number | null): string {
  switch (format) {
    case 'banner':
      return `banner:${width ?? 0}x${height ?? 0}`;
    case 'floating_video':
      return 'video';
    case 'popunder':
    case 'direct_link':
      return POP_SLOT;
    default:
      return format;
  }
}

/**
 * The slots an OpenRTB impression accepts: its banner size and formats, native, video. `playsOurVast`: the
 * imp's video takes one progressive MP4 in one of our VAST versions (openrtb/vast-version.ts, worked out
 * once per imp by the caller).
 */
export function slotsOf(imp: Imp, playsOurVast: boolean): string[] {
  const slots: string[] = [];
  const b = imp.banner;
  if (b) {
    if (b.w && b.h) slots.push(`banner:${b.w}x${b.h}`);
    for (const f of b.format ?? []) {
      if (!f.w || !f.h) continue;
      const s = `banner:${f.w}x${f.h}`;
      if (!slots.includes(s)) slots.push(s);
    }
  }
  if (imp.native) slots.push('native');
  if (imp.video && playsOurVast) slots.push('video');
  return slots;
}
