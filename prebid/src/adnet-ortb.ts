// The parts of our Prebid.js adapter that know our endpoint and nothing of Prebid (adnetBidAdapter.ts wires them
// into Prebid), so they are tested on their own.

/** Our bidder code in Prebid ad units: `bids: [{ bidder: 'adnet', params: { zone: '<subid>' } }]`. */
export const BIDDER_CODE = 'adnet';

export interface AdnetParams {
  /** The zone's subid, as the cabinet shows it (a number that reads as one is taken too). */
  zone: string | number;
}

const SUBID = /^[A-Za-z0-9]{1,32}$/;

/** A bid request names one of our zones by its subid. */
export function isAdnetParams(params: unknown): params is AdnetParams {
  const zone = typeof params === 'object' && params !== null ? (params as { zone?: unknown }).zone : undefined;
  return (typeof zone === 'string' || typeof zone === 'number') && SUBID.test(String(zone));
}

/** Our endpoint for an engine's base URL (`https://ads.example.com`, with or without a trailing slash). */
export function bidEndpoint(base: string): string | undefined {
  try {
    const u = new URL(base);
    if (u.protocol !== 'https:' && u.protocol !== 'http:') return undefined;
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}/hb/bid`;
  } catch {
    return undefined;
  }
}

/** OpenRTB 2.6 `mtype` as Prebid's media type. */
export const MTYPE_MEDIA: Readonly<Record<number, 'banner' | 'video' | 'native'>> = {
  1: 'banner',
  2: 'video',
  4: 'native',
};

/** Where a page keeps its first-party id for our zones: the widget's own key, so both count one user. */
export const UID_KEY = 'adnet:uid';
const UID = /^[A-Za-z0-9_-]{16,64}$/;

/** Local storage as Prebid's storage manager offers it (only when the page's consent allows the bidder storage). */
export interface SmallStorage {
  getDataFromLocalStorage(key: string): string | null;
  setDataInLocalStorage(key: string, value: string): void;
}

/** The page's first-party id for frequency caps (128 random bits, base64url), made once; undefined when storage is refused. */
export function firstPartyId(storage: SmallStorage, random: (bytes: Uint8Array) => void): string | undefined {
  try {
    const kept = storage.getDataFromLocalStorage(UID_KEY);
    if (kept && UID.test(kept)) return kept;
    const bytes = new Uint8Array(16);
    random(bytes);
    let s = '';
    for (const b of bytes) s += String.fromCharCode(b);
    const id = btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    storage.setDataInLocalStorage(UID_KEY, id);
    return storage.getDataFromLocalStorage(UID_KEY) === id ? id : undefined;
  } catch {
    return undefined;
  }
}
