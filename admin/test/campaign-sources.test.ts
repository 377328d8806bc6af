import { beforeAll, describe, expect, it } from 'vitest';
import { account, call, useTestApp, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { World } from '@adnet/test-support/world';

// Source lists and bid adjustments through the real admin API: replaced whole by PATCH, edited by
// sources/add and sources/remove (idempotent, concurrent edits all land), unknown zones and sites kept
// and named in `warnings`, and every bad input a 400 naming its field.

const fx = useTestApp();
let adv: Account;
let other: Account;
let zone: { id: number; subid: string };
let siteId: number;
let siteDomain: string;

interface Warning {
  field: string;
  values: (string | number)[];
}
type Body = Record<string, unknown> & {
  id: number;
  errors?: Record<string, string>;
  sources?: { mode: string; zones: string[]; sites: number[] };
  bid_adjustments?: unknown[];
  warnings?: Warning[];
};
const create = (json: unknown, who = adv) =>
  call<Body>(fx.app, 'POST', '/api/adv/campaigns', { token: who.token, json });
const patch = (id: number, json: unknown, who = adv) =>
  call<Body>(fx.app, 'PATCH', `/api/adv/campaigns/${id}`, { token: who.token, json });
const add = (id: number, json: unknown, who = adv) =>
  call<Body>(fx.app, 'POST', `/api/adv/campaigns/${id}/sources/add`, { token: who.token, json });
const remove = (id: number, json: unknown, who = adv) =>
  call<Body>(fx.app, 'POST', `/api/adv/campaigns/${id}/sources/remove`, { token: who.token, json });
const get = (id: number) => call<Body>(fx.app, 'GET', `/api/adv/campaigns/${id}`, { token: adv.token });
const newCampaign = async () => (await create(validCampaign)).body.id;

beforeAll(async () => {
  adv = await account(fx.app, 'advertiser');
  other = await account(fx.app, 'advertiser');
  const world = await World.create(fx.app);
  const site = await world.site();
  siteId = site.id;
  siteDomain = site.domain;
  zone = await world.zone({ format: 'native' }, site);
});

describe('source lists', () => {
  it('a new campaign has an empty exclude list and no adjustments; PATCH replaces the list whole, deduplicated', async () => {
    const id = await newCampaign();
    expect((await get(id)).body).toMatchObject({
      sources: { mode: 'exclude', zones: [], sites: [] },
      bid_adjustments: [],
    });
    const r = await patch(id, { sources: { mode: 'include', zones: [zone.subid, zone.subid], sites: [siteId] } });
    expect(r.status).toBe(200);
    expect(r.body.sources).toEqual({ mode: 'include', zones: [zone.subid], sites: [siteId] });
    expect(r.body.warnings).toEqual([]);
    const again = await patch(id, { sources: { mode: 'exclude', sites: [siteId] } });
    expect(again.body.sources).toEqual({ mode: 'exclude', zones: [], sites: [siteId] });
    expect((await get(id)).body.sources).toEqual({ mode: 'exclude', zones: [], sites: [siteId] });
    // Kept apart from the campaign: the stored campaign does not carry the list.
    const stored = await fx.app.svc.configStore.read<Record<string, unknown>>('campaign', id);
    expect(stored?.value.sources).toBeUndefined();
  });

  it('keeps entries naming unknown zones and sites, and names them in warnings', async () => {
    const id = await newCampaign();
    const r = await patch(id, {
      sources: { mode: 'exclude', zones: [zone.subid, 'nosuchzone1'], sites: [siteId, 999_999] },
    });
    expect(r.status).toBe(200);
    expect(r.body.sources).toEqual({ mode: 'exclude', zones: [zone.subid, 'nosuchzone1'], sites: [siteId, 999_999] });
    expect(r.body.warnings).toEqual([
      expect.objectContaining({ field: 'sources.zones', values: ['nosuchzone1'] }),
      expect.objectContaining({ field: 'sources.sites', values: [999_999] }),
    ]);
    const added = await add(id, { zones: ['ghost2'] });
    expect(added.body.warnings).toEqual([expect.objectContaining({ field: 'sources.zones', values: ['ghost2'] })]);
  });

  it('add and remove are idempotent and keep the mode', async () => {
    const id = await newCampaign();
    await patch(id, { sources: { mode: 'include', zones: ['a1'] } });
    const once = await add(id, { zones: ['b2', 'a1'], sites: [5] });
    const twice = await add(id, { zones: ['b2'], sites: [5] });
    expect(once.body.sources).toEqual({ mode: 'include', zones: ['a1', 'b2'], sites: [5] });
    expect(twice.body.sources).toEqual(once.body.sources);
    const rm = await remove(id, { zones: ['a1', 'never'], sites: [5] });
    expect(rm.status).toBe(200);
    expect((await remove(id, { zones: ['a1'] })).body.sources).toEqual({ mode: 'include', zones: ['b2'], sites: [] });
  });

  it('concurrent adds all land', async () => {
    const id = await newCampaign();
    const batches = Array.from({ length: 12 }, (_, i) => ({ zones: [`c${i}a`, `c${i}b`], sites: [1000 + i] }));
    const answers = await Promise.all(batches.map((b) => add(id, b)));
    expect(answers.map((a) => a.status)).toEqual(batches.map(() => 200));
    const list = (await get(id)).body.sources;
    expect(list?.zones.length).toBe(24);
    expect(list?.sites.length).toBe(12);
    expect(new Set(list?.zones)).toEqual(new Set(batches.flatMap((b) => b.zones)));
  });

  it('refuses more than 10 000 entries, naming the field, and writes nothing', async () => {
    const id = await newCampaign();
    const zones = Array.from({ length: 6_000 }, (_, i) => `z${i}`);
    const sites = Array.from({ length: 4_001 }, (_, i) => i + 1);
    const r = await patch(id, { sources: { mode: 'exclude', zones, sites } });
    expect(r.status).toBe(400);
    expect(r.body.errors).toEqual({ sources: expect.stringMatching(/at most 10000 entries/) });
    expect(
      (await patch(id, { sources: { mode: 'exclude', zones: Array.from({ length: 10_001 }, (_, i) => `y${i}`) } })).body
        .errors,
    ).toHaveProperty(['sources.zones']);
    // Exactly the limit is fine, with warnings for every unknown entry; one more through add is refused.
    const full = await patch(id, { sources: { mode: 'exclude', zones, sites: sites.slice(0, 4_000) } });
    expect(full.status).toBe(200);
    const over = await add(id, { sites: [777_777] });
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual({ sites: expect.stringMatching(/at most 10000 .* 10001/) });
    expect((await get(id)).body.sources?.sites.length).toBe(4_000);
    // What is already there may be added again.
    expect((await add(id, { zones: ['z1'] })).status).toBe(200);
  });

  it('refuses bad entries and modes, naming the field', async () => {
    const id = await newCampaign();
    const bad = async (json: unknown, field: string, via = patch) => {
      const r = await via(id, json);
      expect(r.status, JSON.stringify(json)).toBe(400);
      expect(r.body.errors, JSON.stringify(json)).toHaveProperty([field]);
    };
    await bad({ sources: { mode: 'block', zones: [] } }, 'sources.mode');
    await bad({ sources: { zones: [] } }, 'sources.mode');
    await bad({ sources: { mode: 'exclude', zones: ['has space'] } }, 'sources.zones.0');
    await bad({ sources: { mode: 'exclude', sites: [-1] } }, 'sources.sites.0');
    await bad({ sources: { mode: 'exclude', sites: ['1'] } }, 'sources.sites.0');
    await bad({ zones: ['<script>'] }, 'zones.0', add);
    await bad({ sites: [1.5] }, 'sites.0', remove);
  });

  it("another advertiser's campaign: 403 for every edit, and an archived campaign's list cannot change", async () => {
    const id = await newCampaign();
    expect((await add(id, { zones: ['x1'] }, other)).status).toBe(403);
    expect((await remove(id, { zones: ['x1'] }, other)).status).toBe(403);
    expect((await patch(id, { sources: { mode: 'include', zones: ['x1'] } }, other)).status).toBe(403);
    await call(fx.app, 'POST', `/api/adv/campaigns/${id}/archive`, { token: adv.token });
    expect((await add(id, { zones: ['x1'] })).status).toBe(409);
    expect((await get(id)).body.sources?.zones).toEqual([]);
  });
});

describe('bid adjustments', () => {
  it('are stored as given on create and replaced whole by PATCH, with warnings for unknown zones and sites', async () => {
    const r = await create({
      ...validCampaign,
      bid_adjustments: [
        { zone: zone.subid, multiplier: 2 },
        { country: 'DE', multiplier: 0.5 },
      ],
    });
    expect(r.status).toBe(201);
    expect(r.body.bid_adjustments).toEqual([
      { zone: zone.subid, multiplier: 2 },
      { country: 'de', multiplier: 0.5 },
    ]);
    const p = await patch(r.body.id, {
      bid_adjustments: [
        { site: 424_242, multiplier: 1.25 },
        { zone: 'ghostzone', multiplier: 3 },
      ],
    });
    expect(p.body.bid_adjustments).toEqual([
      { site: 424_242, multiplier: 1.25 },
      { zone: 'ghostzone', multiplier: 3 },
    ]);
    expect(p.body.warnings).toEqual([
      expect.objectContaining({ field: 'bid_adjustments', values: ['site 424242', 'zone ghostzone'] }),
    ]);
    expect((await patch(r.body.id, { bid_adjustments: [] })).body.bid_adjustments).toEqual([]);
  });

  it('refuses multipliers out of range, two keys or none, duplicate keys and too many entries, naming the field', async () => {
    const id = await newCampaign();
    const bad = async (bid_adjustments: unknown, field: string) => {
      const r = await patch(id, { bid_adjustments });
      expect(r.status, JSON.stringify(bid_adjustments)).toBe(400);
      expect(r.body.errors, JSON.stringify(bid_adjustments)).toHaveProperty([field]);
    };
    await bad([{ zone: 'a', multiplier: 0.09 }], 'bid_adjustments.0.multiplier');
    await bad([{ zone: 'a', multiplier: 10.5 }], 'bid_adjustments.0.multiplier');
    await bad([{ zone: 'a', multiplier: 1.2345 }], 'bid_adjustments.0.multiplier');
    await bad([{ zone: 'a', multiplier: '2' }], 'bid_adjustments.0.multiplier');
    await bad([{ zone: 'a' }], 'bid_adjustments.0.multiplier');
    await bad([{ zone: 'a', site: 1, multiplier: 2 }], 'bid_adjustments.0');
    await bad([{ multiplier: 2 }], 'bid_adjustments.0');
    await bad([{ country: 'xx', multiplier: 2 }], 'bid_adjustments.0.country');
    await bad([{ device: 'mobile', multiplier: 2 }], 'bid_adjustments.0');
    await bad(
      [
        { zone: 'a', multiplier: 2 },
        { zone: 'a', multiplier: 3 },
      ],
      'bid_adjustments',
    );
    await bad(
      Array.from({ length: 1_001 }, (_, i) => ({ site: i + 1, multiplier: 2 })),
      'bid_adjustments',
    );
    expect((await get(id)).body.bid_adjustments).toEqual([]);
  });
});

describe('zone lookup for lists built from statistics', () => {
  it('answers the subid and site of zones named by id, leaving unknown ids out; refuses anything but ids', async () => {
    const r = await call<{ zones: unknown[] }>(
      fx.app,
      'GET',
      `/api/adv/sources/zones?ids=${zone.id},999999,${zone.id}`,
      { token: adv.token },
    );
    expect(r.status).toBe(200);
    // Named as a person reads a placement: the site's domain and the zone's name.
    expect(r.body.zones).toEqual([
      { id: zone.id, subid: zone.subid, site_id: siteId, name: 'zone', domain: siteDomain },
    ]);
    const bad = await call<Body>(fx.app, 'GET', '/api/adv/sources/zones?ids=1;DROP', { token: adv.token });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveProperty(['ids']);
  });
});

describe('the documents', () => {
  it('OpenAPI has the list paths, their bodies, and warnings in the answers', async () => {
    interface Op {
      requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
      responses: Record<string, { content?: Record<string, { schema: { properties?: Record<string, unknown> } }> }>;
    }
    const doc = (await (await fetch(`${fx.app.base}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, Op>>;
    };
    const add = doc.paths['/api/adv/campaigns/{id}/sources/add']?.post;
    expect(Object.keys(add?.requestBody?.content['application/json']?.schema.properties ?? {}).sort()).toEqual([
      'sites',
      'zones',
    ]);
    expect(Object.keys(add?.responses['200']?.content?.['application/json']?.schema.properties ?? {})).toEqual(
      expect.arrayContaining(['sources', 'warnings']),
    );
    expect(doc.paths['/api/adv/campaigns/{id}/sources/remove']?.post).toBeDefined();
    const patch = doc.paths['/api/adv/campaigns/{id}']?.patch;
    expect(Object.keys(patch?.requestBody?.content['application/json']?.schema.properties ?? {})).toEqual(
      expect.arrayContaining(['sources', 'bid_adjustments']),
    );
  });

  it('a campaign created with a list has it, with warnings for the unknown entries', async () => {
    const r = await create({ ...validCampaign, sources: { mode: 'include', zones: [zone.subid, 'nothere'] } });
    expect(r.status).toBe(201);
    expect(r.body.sources).toEqual({ mode: 'include', zones: [zone.subid, 'nothere'], sites: [] });
    expect(r.body.warnings).toEqual([expect.objectContaining({ field: 'sources.zones', values: ['nothere'] })]);
  });
});
