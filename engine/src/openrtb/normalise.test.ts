import { bidRequestSchema } from '@adnet/schemas/openrtb';
import type { BidRequest } from '@adnet/schemas/openrtb';
import { describe, expect, it } from 'vitest';
import { normaliseBidRequest } from './normalise.ts';
import { parseBidRequest } from './parse-request.ts';

/** As the bid route does: the cheap check, then the normaliser. */
function normalised(body: unknown): BidRequest {
  const parsed = parseBidRequest(Buffer.from(JSON.stringify(body)));
  if (!parsed.ok) throw new Error(parsed.reason);
  return normaliseBidRequest(parsed.request);
}
const chain = (sid: string) => ({ complete: 1, ver: '1.0', nodes: [{ asi: 'exchange.example', sid, hp: 1 }] });
const sua = (brand: string) => ({ browsers: [{ brand: 'Chrome', version: ['125'] }], platform: { brand }, mobile: 0 });

describe('normaliseBidRequest', () => {
  it('reads the OpenRTB 2.6 places as sent', () => {
    const r = normalised({
      id: 'a',
      imp: [{ id: '1', rwdd: 1, video: { mimes: ['video/mp4'], plcmt: 1 } }],
      regs: { gdpr: 1, us_privacy: '1YNN', gpp: 'DBABMA~CPXxRfAPXxRfAAfKABENB-CgAAAAAAAAAAYgAAAAAAAA', gpp_sid: [2] },
      user: { consent: 'CONSENT', eids: [{ source: 'id.example', uids: [{ id: 'x' }] }] },
      source: { schain: chain('s26') },
      device: { sua: sua('Android') },
    });
    expect(r.regs).toMatchObject({ gdpr: 1, us_privacy: '1YNN', gpp_sid: [2] });
    expect(r.user).toMatchObject({ consent: 'CONSENT', eids: [{ source: 'id.example' }] });
    expect(r.source?.schain?.nodes[0]?.sid).toBe('s26');
    expect(r.imp[0]).toMatchObject({ rwdd: 1, video: { plcmt: 1 } });
    expect(r.device?.sua?.platform?.brand).toBe('Android');
  });

  it('fills each 2.6 place from its 2.5 ext place when only that one is sent', () => {
    const r = normalised({
      id: 'a',
      imp: [{ id: '1', ext: { prebid: { is_rewarded_inventory: 1 } }, video: { ext: { plcmt: 2 } } }],
      regs: { ext: { gdpr: 1, us_privacy: '1YYN', gpp: 'G', gpp_sid: [7, 8] } },
      user: { ext: { consent: 'CONSENT25', eids: [{ source: 'id.example' }] } },
      source: { ext: { schain: chain('s25') } },
      device: { ext: { sua: sua('iOS') } },
    });
    expect(r.regs).toMatchObject({ gdpr: 1, us_privacy: '1YYN', gpp: 'G', gpp_sid: [7, 8] });
    expect(r.user).toMatchObject({ consent: 'CONSENT25', eids: [{ source: 'id.example' }] });
    expect(r.source?.schain?.nodes[0]?.sid).toBe('s25');
    expect(r.imp[0]).toMatchObject({ rwdd: 1, video: { plcmt: 2 } });
    expect(r.device?.sua?.platform?.brand).toBe('iOS');
  });

  it('lets the 2.6 place win when both are present', () => {
    const r = normalised({
      id: 'a',
      imp: [
        { id: '1', rwdd: 0, ext: { prebid: { is_rewarded_inventory: 1 } }, video: { plcmt: 1, ext: { plcmt: 4 } } },
      ],
      regs: { gdpr: 0, us_privacy: '1NNN', gpp: 'NEW', gpp_sid: [2], ext: { gdpr: 1, us_privacy: '1YYN', gpp: 'OLD' } },
      user: { consent: 'NEW', eids: [], ext: { consent: 'OLD', eids: [{ source: 'old' }] } },
      source: { schain: chain('new'), ext: { schain: chain('old') } },
      device: { sua: sua('Windows'), ext: { sua: sua('Linux') } },
    });
    expect(r.regs).toMatchObject({ gdpr: 0, us_privacy: '1NNN', gpp: 'NEW', gpp_sid: [2] });
    expect(r.user).toMatchObject({ consent: 'NEW', eids: [] });
    expect(r.source?.schain?.nodes[0]?.sid).toBe('new');
    expect(r.imp[0]).toMatchObject({ rwdd: 0, video: { plcmt: 1 } });
    expect(r.device?.sua?.platform?.brand).toBe('Windows');
  });

  it('ignores garbage in the ext places it newly reads (a 2.5 partner is never refused for them)', () => {
    const r = normalised({
      id: 'a',
      imp: [{ id: '1', ext: { prebid: { is_rewarded_inventory: 'yes' } }, video: { ext: { plcmt: '1' } } }],
      regs: { ext: { gpp: 7, gpp_sid: 'two' } },
      user: { ext: { eids: 'x' } },
      source: { ext: { schain: { nodes: 'none' } } },
      device: { ext: { sua: { mobile: 7 } } },
    });
    expect(r.regs?.gpp).toBeUndefined();
    expect(r.regs?.gpp_sid).toBeUndefined();
    expect(r.user?.eids).toBeUndefined();
    expect(r.source?.schain).toBeUndefined();
    expect(r.imp[0]?.rwdd).toBeUndefined();
    expect(r.imp[0]?.video?.plcmt).toBeUndefined();
    expect(r.device?.sua).toBeUndefined();
  });

  it('leaves a 2.5 request without these fields as it was', () => {
    const body = { id: 'a', imp: [{ id: '1', banner: { w: 300, h: 250 } }], site: { domain: 'a.example' } };
    expect(normalised(body)).toEqual(body);
  });
});

describe('garbage in the 2.6 places', () => {
  const bad: [string, unknown][] = [
    ['regs.gdpr', { regs: { gdpr: 'yes' } }],
    ['regs.us_privacy', { regs: { us_privacy: 1 } }],
    ['regs.gpp', { regs: { gpp: {} } }],
    ['regs.gpp_sid', { regs: { gpp_sid: ['2'] } }],
    ['user.consent', { user: { consent: 5 } }],
    ['user.eids', { user: { eids: {} } }],
    ['source', { source: 'x' }],
    ['source.schain', { source: { schain: { complete: 1, ver: '1.0', nodes: [{ asi: 3 }] } } }],
    ['imp[].rwdd', { imp: [{ id: '1', rwdd: 'yes' }] }],
    ['imp[].video.plcmt', { imp: [{ id: '1', video: { plcmt: 1.5 } }] }],
    ['device.sua', { device: { sua: { mobile: 2 } } }],
  ];
  it.each(bad)('is a 400 naming %s, as the reference schema refuses it', (field, over) => {
    const req = { id: 'a', imp: [{ id: '1' }], ...(over as object) };
    expect(bidRequestSchema.safeParse(req).success).toBe(false);
    const r = parseBidRequest(Buffer.from(JSON.stringify(req)));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toContain(field);
  });
});
