import { describe, expect, it } from 'vitest';
import { MTYPE_MEDIA, UID_KEY, bidEndpoint, firstPartyId, isAdnetParams } from './adnet-ortb.ts';

describe('our Prebid.js adapter, its own parts', () => {
  it('takes a bid request that names a zone by its subid, nothing else', () => {
    expect(isAdnetParams({ zone: 'a1B2c3' })).toBe(true);
    // A number that reads as a subid is taken as one (Prebid's configurations often carry ids as numbers).
    expect(isAdnetParams({ zone: 12 })).toBe(true);
    for (const p of [undefined, null, {}, { zone: '' }, { zone: 'a b' }, { zone: 'x'.repeat(33) }, 'z'])
      expect(isAdnetParams(p), JSON.stringify(p)).toBe(false);
  });

  it('calls /hb/bid on the configured base URL, and refuses what is not http(s)', () => {
    expect(bidEndpoint('https://ads.example.com')).toBe('https://ads.example.com/hb/bid');
    expect(bidEndpoint('https://ads.example.com/')).toBe('https://ads.example.com/hb/bid');
    expect(bidEndpoint('http://127.0.0.1:8080/adnet/')).toBe('http://127.0.0.1:8080/adnet/hb/bid');
    for (const bad of ['', 'ads.example.com', 'javascript:alert(1)', 'data:text/plain,x'])
      expect(bidEndpoint(bad)).toBeUndefined();
  });

  it("reads a bid's media type from its OpenRTB 2.6 mtype", () => {
    expect([1, 2, 4, 3].map((m) => MTYPE_MEDIA[m])).toEqual(['banner', 'video', 'native', undefined]);
  });

  it("keeps one first-party id per browser in the widget's key, and none when storage is refused", () => {
    const kept = new Map<string, string>();
    const storage = {
      getDataFromLocalStorage: (k: string) => kept.get(k) ?? null,
      setDataInLocalStorage: (k: string, v: string) => void kept.set(k, v),
    };
    const random = (b: Uint8Array) => b.fill(7);
    const id = firstPartyId(storage, random);
    expect(id).toMatch(/^[A-Za-z0-9_-]{22}$/);
    expect(kept.get(UID_KEY)).toBe(id);
    expect(firstPartyId(storage, () => {})).toBe(id);
    const refused = {
      getDataFromLocalStorage: () => null,
      setDataInLocalStorage: () => {
        throw new Error('SecurityError');
      },
    };
    expect(firstPartyId(refused, random)).toBeUndefined();
  });
});
