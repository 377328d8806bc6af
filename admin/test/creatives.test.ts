import type { TRPCClientError } from '@trpc/client';
import { beforeAll, describe, expect, it } from 'vitest';
import type { AppRouter } from '../src/trpc/router.ts';
import { trpcClient } from './support/trpc-client.ts';
import { account, accounts, call, creativeForm, useTestApp, validCampaign } from '@adnet/test-support/admin';
import type { Account } from '@adnet/test-support/admin';
import { makeGif, makeJpeg, makePng } from '@adnet/test-support/images';

const fx = useTestApp();
let adv: Account;
let other: Account;
let admin: Account;

beforeAll(async () => {
  [adv, other, admin] = await accounts(fx.app, 'advertiser', 'advertiser', 'admin');
});

async function campaign(format = 'native', who = adv): Promise<number> {
  const r = await call<{ id: number }>(fx.app, 'POST', '/api/adv/campaigns', {
    token: who.token,
    json: { ...validCampaign, format },
  });
  return r.body.id;
}

const png = (w = 200, h = 200, name = 'ad.png') => ({ data: makePng(w, h), name, type: 'image/png' });
const upload = (campaignId: number, form: FormData, token = adv.token) =>
  call<Record<string, unknown> & { id: number; errors?: Record<string, string> }>(
    fx.app,
    'POST',
    `/api/adv/campaigns/${campaignId}/creatives`,
    {
      token,
      form,
    },
  );
const nativeFields = {
  title: 'Win big',
  body: 'Spin now',
  landing_url: 'https://example.com/offer?cid={click_id}',
  cta_text: 'Play',
};

describe('upload', () => {
  it('201 pending_moderation with tracking token and ETA; the image is served by content hash', async () => {
    const id = await campaign();
    const image = png(300, 200);
    const r = await upload(id, creativeForm(nativeFields, image));
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      id: expect.any(Number),
      status: 'pending_moderation',
      tracking_token: expect.stringMatching(/^[A-Za-z0-9_-]{24}$/),
      moderation_eta_seconds: expect.any(Number),
      campaign_id: id,
      title: 'Win big',
      image_width: 300,
      image_height: 200,
      format: 'native',
    });
    expect(r.body.moderation_eta_seconds as number).toBeGreaterThanOrEqual(900);
    const url = new URL(r.body.image_url as string);
    expect(url.pathname).toMatch(/^\/media\/[0-9a-f]{64}\.png$/);
    const media = await fetch(fx.app.base + url.pathname);
    expect(media.headers.get('content-type')).toBe('image/png');
    expect(media.headers.get('cache-control')).toContain('immutable');
    expect(Buffer.from(await media.arrayBuffer()).equals(image.data)).toBe(true);
  });

  it('trusts content, not the name: a JPEG called .png is stored as .jpg, GIF works too', async () => {
    const id = await campaign();
    const jpeg = await upload(
      id,
      creativeForm(nativeFields, { data: makeJpeg(400, 300), name: 'photo.png', type: 'image/png' }),
    );
    expect(jpeg.status).toBe(201);
    expect(jpeg.body.image_url).toMatch(/\.jpg$/);
    const gif = await upload(
      id,
      creativeForm(nativeFields, { data: makeGif(150, 150), name: 'anim.gif', type: 'image/gif' }),
    );
    expect(gif.status).toBe(201);
  });

  it.each([
    ['a script disguised as .png', Buffer.from('<script>alert(1)</script>'), 'ad.png'],
    ['an SVG', Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="200" height="200"></svg>'), 'ad.svg'],
    ['a truncated PNG', makePng(200, 200).subarray(0, 12), 'ad.png'],
  ])('400 for %s', async (_what, data, name) => {
    const r = await upload(await campaign(), creativeForm(nativeFields, { data, name, type: 'image/png' }));
    expect(r.status).toBe(400);
    expect(r.body.errors?.image).toContain('checked by content');
  });

  it('400 for an image over the size limit, 413 for a body far over it', async () => {
    const id = await campaign();
    const big = Buffer.concat([makePng(200, 200), Buffer.alloc(1024 * 1024 + 10, 7)]);
    const r = await upload(id, creativeForm(nativeFields, { data: big, name: 'big.png', type: 'image/png' }));
    expect(r.status).toBe(400);
    expect(r.body.errors?.image).toContain('at most 1048576 bytes');
    const huge = Buffer.concat([makePng(200, 200), Buffer.alloc(3 * 1024 * 1024, 7)]);
    const h = await upload(id, creativeForm(nativeFields, { data: huge, name: 'huge.png', type: 'image/png' }));
    expect(h.status).toBe(413);
    expect(h.body.code).toBe('payload_too_large');
  });

  it('400 naming missing and misplaced parts', async () => {
    const id = await campaign();
    const none = await upload(id, creativeForm({}));
    expect(Object.keys(none.body.errors ?? {}).sort()).toEqual(['image', 'landing_url', 'title']);
    const noImage = await upload(id, creativeForm(nativeFields));
    expect(noImage.body.errors).toEqual({ image: 'is required for native creatives' });
    const noTitle = await upload(id, creativeForm({ landing_url: 'https://example.com/' }, png()));
    expect(noTitle.body.errors).toEqual({ title: 'is required for native creatives' });
    const textImage = await upload(id, creativeForm({ ...nativeFields, image: 'not a file' }));
    expect(textImage.body.errors?.image).toBe('must be a file upload');
    const fileTitle = creativeForm({ landing_url: 'https://example.com/' }, png());
    fileTitle.set('title', new Blob(['x']), 'title.txt');
    expect((await upload(id, fileTitle)).body.errors?.title).toBe('must be a text field, not a file');
  });

  it('400 for bad text fields', async () => {
    const id = await campaign();
    const r = await upload(
      id,
      creativeForm({ title: 'x'.repeat(61), landing_url: 'javascript:alert(1)', cta_text: 'y'.repeat(21) }, png()),
    );
    expect(Object.keys(r.body.errors ?? {}).sort()).toEqual(['cta_text', 'landing_url', 'title']);
    // Through tRPC without a campaign id: the fields' own problems are named with it.
    const form = creativeForm({ title: 'x'.repeat(61), landing_url: 'javascript:alert(1)' });
    const noCampaign = await trpcClient(fx.app.base, adv.token)
      .adv.creatives.create.mutate(form)
      .catch((e: unknown) => e as TRPCClientError<AppRouter>);
    expect(Object.keys((noCampaign as TRPCClientError<AppRouter>).data?.fields ?? {}).sort()).toEqual([
      'campaign_id',
      'landing_url',
      'title',
    ]);
    const macro = await upload(
      id,
      creativeForm({ ...nativeFields, landing_url: 'https://e.com/?a={zone}&c={click_id}&z={zone_id}' }, png()),
    );
    expect(macro.body.errors?.landing_url).toMatch(/^unknown macro \{zone\}; use \{click_id\}, \{zone_id\}, /);
    const allMacros =
      'https://e.com/{geo}?c={click_id}&z={zone_id}&s={site_id}&k={campaign_id}&r={creative_id}&d={device}&o={os}&b={browser}&p={cost}&t={bid_type}';
    const macros = await upload(id, creativeForm({ ...nativeFields, landing_url: allMacros }, png()));
    expect([macros.status, (macros.body as { landing_url?: string }).landing_url]).toEqual([201, allMacros]);
    const tooSmall = await upload(id, creativeForm(nativeFields, png(50, 50)));
    expect(tooSmall.body.errors?.image).toContain('at least 100x100');
  });

  it('400 names every URL that carries a line break, "]]>" or another scheme; what passes is stored normalised', async () => {
    const video = await campaign('video');
    const bad = await upload(
      video,
      creativeForm({
        landing_url: 'https://example.com/\r\nSet-Cookie: a=1',
        video_url: 'https://cdn.example.com/]]><script>alert(1)</script>',
      }),
    );
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual({
      landing_url: 'must not contain control characters or line breaks',
      video_url: 'must not contain "]]>"',
    });
    const scheme = await upload(
      video,
      creativeForm({ landing_url: 'https://example.com/', video_url: 'javascript:alert(1)//.mp4' }),
    );
    expect(scheme.body.errors).toEqual({ video_url: 'must be an absolute http(s) URL' });
    const ok = await upload(
      video,
      creativeForm({
        landing_url: 'https://Example.com/{click_id}?q="><b>',
        video_url: 'https://cdn.example.com/a b.mp4',
      }),
    );
    expect(ok.status).toBe(201);
    expect(ok.body).toMatchObject({
      landing_url: 'https://example.com/{click_id}?q=%22%3E%3Cb%3E',
      video_url: 'https://cdn.example.com/a%20b.mp4',
    });
  });

  it('415 for a JSON body, 400 for a broken multipart body', async () => {
    const id = await campaign();
    expect(
      (await call(fx.app, 'POST', `/api/adv/campaigns/${id}/creatives`, { token: adv.token, json: nativeFields }))
        .status,
    ).toBe(415);
    const broken = await call(fx.app, 'POST', `/api/adv/campaigns/${id}/creatives`, {
      token: adv.token,
      raw: {
        body: '--abc\r\nContent-Disposition: form-data; name="title"\r\n\r\nhi',
        type: 'multipart/form-data; boundary=zzz',
      },
    });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ errors: { body: 'must be a well-formed multipart/form-data body' } });
  });

  it('banner images must match an IAB size', async () => {
    const id = await campaign('banner');
    expect((await upload(id, creativeForm({ landing_url: 'https://example.com/' }, png(300, 250)))).status).toBe(201);
    const odd = await upload(id, creativeForm({ landing_url: 'https://example.com/' }, png(301, 250)));
    expect(odd.body.errors?.image).toContain('300x250');
  });

  it('video formats take video_url, refuse images, and default the orientation', async () => {
    const video = await campaign('video');
    const v = await upload(
      video,
      creativeForm({ landing_url: 'https://example.com/', video_url: 'https://cdn.example.com/a.mp4' }),
    );
    expect(v.body).toMatchObject({
      status: 'pending_moderation',
      video_url: 'https://cdn.example.com/a.mp4',
      orientation: 'horizontal',
      image_url: null,
    });
    const fv = await campaign('floating_video');
    expect(
      (
        await upload(
          fv,
          creativeForm({ landing_url: 'https://example.com/', video_url: 'https://cdn.example.com/a.mp4' }),
        )
      ).body.orientation,
    ).toBe('vertical');
    expect(
      (
        await upload(
          fv,
          creativeForm({
            landing_url: 'https://example.com/',
            video_url: 'https://cdn.example.com/a.mp4',
            orientation: 'square',
          }),
        )
      ).body.orientation,
    ).toBe('square');
    const bad = await upload(fv, creativeForm({ landing_url: 'https://example.com/', orientation: 'diagonal' }, png()));
    expect(Object.keys(bad.body.errors ?? {}).sort()).toEqual(['image', 'orientation', 'video_url']);
    const missing = await upload(fv, creativeForm({ landing_url: 'https://example.com/' }, png()));
    expect(missing.body.errors).toEqual({
      video_url: 'is required for floating_video creatives',
      image: 'is not accepted for floating_video creatives; send video_url',
    });
    const nativeVideo = await upload(
      await campaign(),
      creativeForm({ ...nativeFields, video_url: 'https://cdn.example.com/a.mp4', orientation: 'vertical' }, png()),
    );
    expect(Object.keys(nativeVideo.body.errors ?? {}).sort()).toEqual(['orientation', 'video_url']);
  });

  it("403 on another advertiser's campaign, 404 on a missing one, 409 on an archived one", async () => {
    const theirs = await campaign('native', other);
    expect((await upload(theirs, creativeForm(nativeFields, png()))).status).toBe(403);
    expect((await upload(987654, creativeForm(nativeFields, png()))).status).toBe(404);
    const id = await campaign();
    await call(fx.app, 'POST', `/api/adv/campaigns/${id}/archive`, { token: adv.token });
    expect((await upload(id, creativeForm(nativeFields, png()))).status).toBe(409);
    const pub = await account(fx.app, 'publisher');
    expect((await upload(id, creativeForm(nativeFields, png()), pub.token)).status).toBe(403);
  });
});

describe('moderation', () => {
  it('queue oldest first; approve and reject once; the advertiser sees the outcome', async () => {
    const id = await campaign();
    const a = await upload(id, creativeForm(nativeFields, png()));
    const b = await upload(id, creativeForm(nativeFields, png(210, 210)));
    const queue = await call<{ creatives: { id: number }[] }>(fx.app, 'GET', '/api/admin/moderation/creatives', {
      token: admin.token,
    });
    const ids = queue.body.creatives.map((c) => c.id);
    expect(ids.indexOf(a.body.id)).toBeLessThan(ids.indexOf(b.body.id));

    const ok = await call(fx.app, 'POST', `/api/admin/creatives/${a.body.id}/approve`, { token: admin.token });
    expect(ok.body).toMatchObject({ status: 'approved', rejection_reason: null, moderated_at: expect.any(String) });
    expect(
      (await call(fx.app, 'POST', `/api/admin/creatives/${a.body.id}/approve`, { token: admin.token })).status,
    ).toBe(409);
    expect(
      (await call(fx.app, 'POST', `/api/admin/creatives/${b.body.id}/reject`, { token: admin.token, json: {} })).body,
    ).toEqual({
      errors: { reason: 'is required' },
    });
    const no = await call(fx.app, 'POST', `/api/admin/creatives/${b.body.id}/reject`, {
      token: admin.token,
      json: { reason: 'Landing page is down' },
    });
    expect(no.body).toMatchObject({ status: 'rejected', rejection_reason: 'Landing page is down' });
    expect(
      (await call(fx.app, 'POST', `/api/admin/creatives/${b.body.id}/approve`, { token: admin.token })).status,
    ).toBe(409);

    const after = await call<{ creatives: { id: number }[] }>(fx.app, 'GET', '/api/admin/moderation/creatives', {
      token: admin.token,
    });
    expect(after.body.creatives.map((c) => c.id)).not.toContain(a.body.id);
    const mine = await call<{ creatives: Record<string, unknown>[] }>(
      fx.app,
      'GET',
      `/api/adv/campaigns/${id}/creatives`,
      { token: adv.token },
    );
    expect(mine.body.creatives.map((c) => [c.id, c.status, c.rejection_reason])).toEqual([
      [a.body.id, 'approved', null],
      [b.body.id, 'rejected', 'Landing page is down'],
    ]);
    expect((await call(fx.app, 'GET', `/api/adv/creatives/${b.body.id}`, { token: adv.token })).body.status).toBe(
      'rejected',
    );
    expect((await call(fx.app, 'GET', `/api/adv/creatives/${b.body.id}`, { token: other.token })).status).toBe(403);
    expect((await call(fx.app, 'GET', `/api/adv/campaigns/${id}/creatives`, { token: other.token })).status).toBe(403);
  });

  it('is for admins only; 404 for a missing creative', async () => {
    expect((await call(fx.app, 'GET', '/api/admin/moderation/creatives', { token: adv.token })).status).toBe(403);
    expect((await call(fx.app, 'POST', '/api/admin/creatives/1/approve', { token: adv.token })).status).toBe(403);
    expect((await call(fx.app, 'POST', '/api/admin/creatives/999999/approve', { token: admin.token })).status).toBe(
      404,
    );
  });
});
