import { BANNER_SIZES } from '@adnet/schemas/api';

/** A deterministic pseudo-random sequence, so every run drives the same corpus. */
export function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const BENCH_COUNTRIES = [
  'us',
  'gb',
  'de',
  'fr',
  'es',
  'it',
  'ca',
  'au',
  'br',
  'mx',
  'in',
  'jp',
  'kr',
  'ru',
  'pl',
  'nl',
  'se',
  'no',
  'fi',
  'dk',
  'at',
  'ch',
  'be',
  'pt',
  'ie',
  'cz',
  'ro',
  'hu',
  'gr',
  'tr',
  'ua',
  'za',
  'ng',
  'eg',
  'sa',
  'ae',
  'il',
  'id',
  'th',
  'vn',
  'ph',
  'my',
  'sg',
  'nz',
  'ar',
  'cl',
  'co',
  'pe',
  'tw',
  'hk',
];
export const BENCH_ALPHA3: Record<string, string> = {
  us: 'USA',
  gb: 'GBR',
  de: 'DEU',
  fr: 'FRA',
  es: 'ESP',
  it: 'ITA',
  ca: 'CAN',
  au: 'AUS',
  br: 'BRA',
  mx: 'MEX',
  in: 'IND',
  jp: 'JPN',
  kr: 'KOR',
  ru: 'RUS',
  pl: 'POL',
  nl: 'NLD',
  se: 'SWE',
  no: 'NOR',
  fi: 'FIN',
  dk: 'DNK',
  at: 'AUT',
  ch: 'CHE',
  be: 'BEL',
  pt: 'PRT',
  ie: 'IRL',
  cz: 'CZE',
  ro: 'ROU',
  hu: 'HUN',
  gr: 'GRC',
  tr: 'TUR',
  ua: 'UKR',
  za: 'ZAF',
  ng: 'NGA',
  eg: 'EGY',
  sa: 'SAU',
  ae: 'ARE',
  il: 'ISR',
  id: 'IDN',
  th: 'THA',
  vn: 'VNM',
  ph: 'PHL',
  my: 'MYS',
  sg: 'SGP',
  nz: 'NZL',
  ar: 'ARG',
  cl: 'CHL',
  co: 'COL',
  pe: 'PER',
  tw: 'TWN',
  hk: 'HKG',
};
export const BENCH_LANGUAGES = ['en', 'de', 'fr', 'es', 'it', 'pt', 'ja', 'ru', 'pl', 'nl'];

/** Varied OpenRTB 2.5 requests of 0.5-3 KB: every imp type, 50 countries, floors, blocks, and filler real requests carry. */
export function makeCorpus(count: number, seed = 42): Buffer[] {
  const r = rng(seed);
  const pick = <T>(a: readonly T[]): T => a[Math.floor(r() * a.length)] as T;
  const out: Buffer[] = [];
  for (let i = 0; i < count; i++) {
    const kind = r();
    const size = pick(BANNER_SIZES);
    const imp: Record<string, unknown> = {
      id: '1',
      bidfloor: Math.round(r() * 150) / 100,
      bidfloorcur: 'USD',
      tagid: `tag-${i % 97}`,
      secure: 1,
    };
    if (kind < 0.55)
      imp.banner = {
        w: size[0],
        h: size[1],
        format:
          r() < 0.4
            ? [
                { w: size[0], h: size[1] },
                { w: 728, h: 90 },
              ]
            : undefined,
        pos: 1,
      };
    else if (kind < 0.8)
      imp.native = {
        request: JSON.stringify({
          ver: '1.2',
          assets: [
            { id: 1, required: 1, title: { len: 90 } },
            { id: 2, img: { type: 3, w: 1200, h: 627 } },
          ],
        }),
        ver: '1.2',
      };
    else imp.video = { mimes: ['video/mp4'], w: 640, h: 360, minduration: 5, maxduration: 30, protocols: [2, 3, 7] };
    const country = pick(BENCH_COUNTRIES);
    const req: Record<string, unknown> = {
      id: `bench-${i}-${Math.floor(r() * 1e9).toString(36)}`,
      imp: [imp],
      site: {
        id: `s${i % 500}`,
        domain: `site${i % 500}.example.com`,
        cat: [pick(['IAB1', 'IAB12', 'IAB17', 'IAB19', 'IAB3'])],
        page: `https://site${i % 500}.example.com/articles/${i}`,
        publisher: { id: `p${i % 50}` },
      },
      device: {
        ua: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Mobile Safari/537.36',
        ip: `203.0.${i % 255}.${(i * 7) % 255}`,
        devicetype: pick([1, 2, 4, 5]),
        language: pick(BENCH_LANGUAGES),
        os: pick(['Android', 'iOS', 'Windows', 'macOS']),
        geo: { country: BENCH_ALPHA3[country], city: 'Somewhere', lat: r() * 90, lon: r() * 180 },
      },
      user: { id: `u-${Math.floor(r() * 1e12).toString(16)}`, buyeruid: `b-${i}` },
      tmax: pick([100, 150, 200, 300]),
      cur: ['USD'],
      at: 1,
    };
    if (r() < 0.2) req.bcat = [pick(['IAB9', 'IAB7', 'IAB14-1', 'IAB25'])];
    if (r() < 0.1) req.badv = ['shop3.example.com'];
    // Filler of the kind real exchanges send (segments, ext), to spread sizes over 0.5-3 KB.
    const segments = Math.floor(r() * 55);
    (req.user as Record<string, unknown>).data = [
      {
        id: 'dmp',
        segment: Array.from({ length: segments }, (_, k) => ({
          id: `seg-${k}-${Math.floor(r() * 1e6)}`,
          value: 'x'.repeat(8),
        })),
      },
    ];
    req.ext = { schain: { ver: '1.0', complete: 1, nodes: [{ asi: 'exchange.example', sid: `${i}`, hp: 1 }] } };
    out.push(Buffer.from(JSON.stringify(req)));
  }
  return out;
}
