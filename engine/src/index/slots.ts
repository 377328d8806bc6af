import type { Creative } from '@adnet/schemas/api';
import type { Imp } from '@adnet/schemas/openrtb';

// A slot names what can fill an impression; creatives are indexed under the
// slot they fill and impressions look up the slots they accept.

/** The slot a format fills: banners by exact size; both video formats answer video impressions. */
export function slotFor(format: Creative['format'], width: number | null, height: number | null): string {
  switch (format) {
    case 'banner':
      return `banner:${width ?? 0}x${height ?? 0}`;
    case 'floating_video':
      return 'video';
    default:
      return format;
  }
}

/** The slots an OpenRTB impression accepts: its banner size and formats, native, video. */
/** VAST 4.0 (protocol 7) inline, with one progressive MP4 file: a video impression must accept both, when it says. */
const OUR_VAST = 7;
const playsOurVast = (v: NonNullable<Imp['video']>): boolean =>
  (v.mimes === undefined || v.mimes.length === 0 || v.mimes.some((m) => m.toLowerCase() === 'video/mp4')) &&
  (v.protocols === undefined || v.protocols.length === 0 || v.protocols.includes(OUR_VAST));

export function slotsOf(imp: Imp): string[] {
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
  if (imp.video && playsOurVast(imp.video)) slots.push('video');
  return slots;
}
