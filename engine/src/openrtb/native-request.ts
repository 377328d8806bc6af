import type { Creative } from '@adnet/schemas/api';

/**
 * What an OpenRTB Native 1.2 request (`imp.native.request`, a JSON string) asks for, reduced to what a
 * creative of ours can fill: a title, an image (main or icon) and text data (description, call to
 * action). Parsed once per impression; checked per candidate in the auction's walk (cheap: a few
 * comparisons); the response echoes the request's asset ids.
 */
export type NativeAsset =
  | { id: number; required: boolean; kind: 'title'; len: number }
  | { id: number; required: boolean; kind: 'img'; wmin: number; hmin: number }
  | { id: number; required: boolean; kind: 'desc' | 'cta'; len: number }
  /** Anything else (video, sponsored-by, rating, ...): we have none. */
  | { id: number; required: boolean; kind: 'other' };

const IMG_MAIN = 3;
const IMG_ICON = 1;
const DATA_DESC = 2;
const DATA_CTA = 12;
const MAX_ASSETS = 32;

const num = (v: unknown, otherwise: number) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? v : otherwise);
const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The assets of a native request string, or undefined when it names none we can read (absent,
 * not JSON, no asset list): such an impression is filled with our default assets (ids 1-4).
 */
export function parseNativeRequest(request: string | undefined): NativeAsset[] | undefined {
  if (!request || request.length > 20_000) return undefined;
  let raw: unknown;
  try {
    raw = JSON.parse(request);
  } catch {
    return undefined;
  }
  // Native 1.0 wrapped the request in {"native": {...}}; 1.1 and 1.2 do not.
  const body = isObj(raw) && isObj(raw.native) ? raw.native : raw;
  if (!isObj(body) || !Array.isArray(body.assets) || body.assets.length === 0) return undefined;
  const out: NativeAsset[] = [];
  for (const a of body.assets.slice(0, MAX_ASSETS)) {
    if (!isObj(a) || typeof a.id !== 'number' || !Number.isInteger(a.id)) continue;
    const required = a.required === 1;
    if (isObj(a.title)) out.push({ id: a.id, required, kind: 'title', len: num(a.title.len, Infinity) || Infinity });
    else if (isObj(a.img) && (a.img.type === IMG_MAIN || a.img.type === IMG_ICON || a.img.type === undefined)) {
      out.push({
        id: a.id,
        required,
        kind: 'img',
        wmin: num(a.img.wmin ?? a.img.w, 0),
        hmin: num(a.img.hmin ?? a.img.h, 0),
      });
    } else if (isObj(a.data) && (a.data.type === DATA_DESC || a.data.type === DATA_CTA)) {
      out.push({
        id: a.id,
        required,
        kind: a.data.type === DATA_DESC ? 'desc' : 'cta',
        len: num(a.data.len, Infinity) || Infinity,
      });
    } else out.push({ id: a.id, required, kind: 'other' });
  }
  return out;
}

/** The value a creative gives an asset, or undefined when it has none that fits. */
function fill(c: Creative, a: NativeAsset): Record<string, unknown> | undefined {
  switch (a.kind) {
    case 'title':
      return c.title && c.title.length <= a.len ? { title: { text: c.title } } : undefined;
    case 'img':
      return c.image_url && (c.image_width ?? 0) >= a.wmin && (c.image_height ?? 0) >= a.hmin
        ? { img: { url: c.image_url, w: c.image_width, h: c.image_height } }
        : undefined;
    case 'desc':
      return c.body && c.body.length <= a.len ? { data: { value: c.body } } : undefined;
    case 'cta':
      return c.cta_text && c.cta_text.length <= a.len ? { data: { value: c.cta_text } } : undefined;
    case 'other':
      return undefined;
  }
}

/** Whether a creative fills every required asset. */
export function fillsRequired(c: Creative, assets: readonly NativeAsset[]): boolean {
  // A loop, not `every`: this runs per native candidate walked, and the callback was a closure made per call.
  for (let i = 0; i < assets.length; i++) {
    const a = assets[i] as NativeAsset;
    if (a.required && fill(c, a) === undefined) return false;
  }
  return true;
}

/** The response's assets: every requested one the creative fills, under the request's id. */
export function nativeAssetsFor(c: Creative, assets: readonly NativeAsset[]): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (const a of assets) {
    const value = fill(c, a);
    if (value) out.push({ id: a.id, ...value });
  }
  return out;
}
