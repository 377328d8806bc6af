import { bidRequestSchema } from '@adnet/schemas/openrtb';
import { describe, expect, it } from 'vitest';
import { parseBidRequest } from './parse-request.ts';

const valid: unknown[] = [
  { id: '1', imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.5 }] },
  {
    id: 'x',
    imp: [
      { id: 'a', native: { request: '{}', ver: '1.2' } },
      { id: 'b', video: { mimes: ['video/mp4'] } },
    ],
    site: { domain: 'a.com', cat: ['IAB1'] },
    device: { ua: 'x', ip: '1.2.3.4', ipv6: '2001:db8::1', devicetype: 2, connectiontype: 2, geo: { country: 'USA' } },
    user: { id: 'u' },
    tmax: 120,
    bcat: ['IAB9'],
    badv: ['b.com'],
    cur: ['USD'],
    unknown: { deep: [1, 2] },
  },
  {
    id: '2',
    imp: [
      {
        id: '1',
        banner: {
          format: [
            { w: 300, h: 250 },
            { w: 728, h: 90 },
          ],
        },
        tagid: 'z1',
        ext: {},
      },
    ],
  },
];
// App placements (OpenRTB 2.5 §3.2.14), with their publisher.
valid.push(
  {
    id: 'app',
    imp: [{ id: '1', banner: { w: 320, h: 50 } }],
    app: {
      id: 'a1',
      name: 'Game',
      bundle: 'com.example.game',
      domain: 'example.com',
      storeurl: 'https://play.example/x',
      cat: ['IAB9'],
      publisher: { id: 'p', name: 'P', domain: 'p.example' },
      ver: '1.0',
    },
  },
  { id: 'app2', imp: [{ id: '1' }], app: {} },
);
// Sizes of 0 mean "not said" (the OpenRTB 2.5 mobile example's interstitial): valid, matching no slot.
valid.push(
  {
    id: '5',
    imp: [
      {
        id: '1',
        banner: { w: 300, h: 250 },
        pmp: { private_auction: 1, deals: [{ id: 'd-1', bidfloor: 2.5, bidfloorcur: 'USD' }, { id: 'd-2' }] },
      },
    ],
    regs: { coppa: 0, ext: { gdpr: 1, us_privacy: '1YNN' } },
    user: { id: 'u', ext: { consent: 'CO-abc' } },
  },
  { id: '6', imp: [{ id: '1', video: { mimes: ['video/mp4'], minduration: 5, maxduration: 30 } }], regs: {} },
);
valid.push({ id: '3', imp: [{ id: '1', banner: { w: 0, h: 0 } }] }, { id: '4', imp: [{ id: '1', banner: {} }] });
// OpenRTB 2.6 Structured User Agent.
const sua = (device: unknown) => ({ id: 's', imp: [{ id: '1' }], device: { sua: device } });
valid.push(
  sua({
    browsers: [
      { brand: 'Not A;Brand', version: ['99'] },
      { brand: 'Google Chrome', version: ['125', '0', '6422', '113'] },
    ],
    platform: { brand: 'Android', version: ['14'] },
    mobile: 1,
    model: 'Pixel 8',
    source: 2,
  }),
  sua({}),
);
const invalid: unknown[] = [
  sua('x'),
  sua({ mobile: 2 }),
  sua({ platform: { brand: 'x'.repeat(65) } }),
  sua({ platform: { version: ['1'] } }),
  sua({ browsers: [{ brand: 'Chrome', version: '125' }] }),
  sua({ browsers: Array.from({ length: 17 }, () => ({ brand: 'Chrome' })) }),
  { id: '1', imp: [{ id: '1', pmp: 'x' }] },
  { id: '1', imp: [{ id: '1', pmp: { private_auction: '1' } }] },
  { id: '1', imp: [{ id: '1', pmp: { deals: [{}] } }] },
  { id: '1', imp: [{ id: '1', pmp: { deals: [{ id: 'd', bidfloor: -1 }] } }] },
  { id: '1', imp: [{ id: '1', pmp: { deals: {} } }] },
  { id: '1', imp: [{ id: '1', video: { minduration: -1 } }] },
  { id: '1', imp: [{ id: '1', video: { maxduration: 1.5 } }] },
  { id: '1', imp: [{ id: '1' }], regs: 1 },
  { id: '1', imp: [{ id: '1' }], regs: { coppa: true } },
  { id: '1', imp: [{ id: '1' }], regs: { ext: { gdpr: '1' } } },
  { id: '1', imp: [{ id: '1' }], regs: { ext: { us_privacy: 1 } } },
  { id: '1', imp: [{ id: '1' }], user: { ext: { consent: 1 } } },
  null,
  [],
  'str',
  42,
  {},
  { id: '', imp: [{ id: '1' }] },
  { id: 1, imp: [{ id: '1' }] },
  { id: '1' },
  { id: '1', imp: [] },
  { id: '1', imp: {} },
  { id: '1', imp: [{}] },
  { id: '1', imp: [{ id: 1 }] },
  { id: '1', imp: [{ id: '1', bidfloor: -1 }] },
  { id: '1', imp: [{ id: '1', bidfloor: '1' }] },
  { id: '1', imp: [{ id: '1', banner: { w: -1, h: 250 } }] },
  { id: '1', imp: [{ id: '1', banner: { format: [{ w: 1 }] } }] },
  { id: '1', imp: [{ id: '1', banner: 'x' }] },
  { id: '1', imp: [{ id: '1', video: { mimes: 'video/mp4' } }] },
  { id: '1', imp: [{ id: '1', video: { protocols: '7' } }] },
  { id: '1', imp: [{ id: '1' }], site: 'x' },
  { id: '1', imp: [{ id: '1' }], site: { cat: 'IAB1' } },
  { id: '1', imp: [{ id: '1' }], device: { geo: { country: 840 } } },
  { id: '1', imp: [{ id: '1' }], device: { devicetype: 1.5 } },
  { id: '1', imp: [{ id: '1' }], device: { connectiontype: '2' } },
  { id: '1', imp: [{ id: '1' }], device: { ipv6: 6 } },
  { id: '1', imp: [{ id: '1' }], tmax: -5 },
  { id: '1', imp: [{ id: '1' }], bcat: [1] },
  { id: '1', imp: [{ id: '1' }], badv: 'x' },
];

invalid.push(
  { id: '1', imp: [{ id: '1' }], site: { domain: 'a.com' }, app: { bundle: 'com.x' } },
  { id: '1', imp: [{ id: '1' }], app: 'com.x' },
  { id: '1', imp: [{ id: '1' }], app: { bundle: 7 } },
  { id: '1', imp: [{ id: '1' }], app: { cat: 'IAB1' } },
  { id: '1', imp: [{ id: '1' }], app: { publisher: 'p' } },
  { id: '1', imp: [{ id: '1' }], app: { publisher: { id: 1 } } },
);

describe('parseBidRequest', () => {
  it.each(valid)('accepts what the reference schema accepts (%#)', (req) => {
    expect(bidRequestSchema.safeParse(req).success).toBe(true);
    expect(parseBidRequest(Buffer.from(JSON.stringify(req)))).toMatchObject({ ok: true });
  });
  it.each(invalid)('refuses what the reference schema refuses (%#)', (req) => {
    expect(bidRequestSchema.safeParse(req).success).toBe(false);
    const r = parseBidRequest(Buffer.from(JSON.stringify(req)));
    expect(r.ok).toBe(false);
  });
  it('refuses malformed and hostile bodies without throwing', () => {
    const hostile = [
      Buffer.from('{'),
      Buffer.from([0xff, 0xfe, 0x00, 0x01]),
      Buffer.from('['.repeat(100_000)),
      Buffer.from(JSON.stringify({ id: '1', imp: Array.from({ length: 10_000 }, (_, i) => ({ id: String(i) })) })),
    ];
    for (const body of hostile) expect(parseBidRequest(body).ok).toBe(false);
  });
});
