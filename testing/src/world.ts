import type { Campaign } from '@adnet/schemas/api';
import type { StoredSite } from '@adnet/schemas/publisher';
import { account, call, creativeForm } from './admin.ts';
import type { Account, AppLike } from './admin.ts';
import { makePng } from './images.ts';

/** Builds the advertiser side through the real admin API, as users would. */
export class World {
  private constructor(
    readonly app: AppLike,
    readonly admin: Account,
  ) {}

  static async create(app: AppLike): Promise<World> {
    return new World(app, await account(app, 'admin'));
  }

  async partner(allowed_ips: string[] = ['127.0.0.1'], qps_limit = 10_000): Promise<number> {
    const r = await call<{ id: number }>(this.app, 'POST', '/api/admin/partners', {
      token: this.admin.token,
      json: { name: 'Exchange', allowed_ips, qps_limit },
    });
    if (r.status !== 201) throw new Error(`partner: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body.id;
  }

  async advertiser(balanceCents: number): Promise<Account> {
    const a = await account(this.app, 'advertiser');
    if (balanceCents > 0)
      await call(this.app, 'POST', `/api/admin/advertisers/${a.id}/credit`, {
        token: this.admin.token,
        json: { amount_cents: balanceCents },
      });
    return a;
  }

  /** An active campaign with one approved creative of its format. */
  async campaign(
    adv: Account,
    fields: Record<string, unknown> = {},
    creative: Record<string, string> = {},
  ): Promise<{ campaign: Campaign; creativeId: number }> {
    // asap: these tests are about serving, charging and counting; even pacing has its own (tests/e2e/pacing.test.ts).
    const body = {
      name: 'Test',
      vertical: 'ecommerce',
      format: 'banner',
      bid_type: 'cpm',
      bid_usd: 1.2,
      daily_budget_usd: 100,
      pacing: 'asap',
      ...fields,
    };
    const c = await call<Campaign>(this.app, 'POST', '/api/adv/campaigns', { token: adv.token, json: body });
    if (c.status !== 201) throw new Error(`campaign: ${JSON.stringify(c.body)}`);
    const creativeId = await this.creative(adv, c.body.id, String(body.format), creative);
    const act = await call<Campaign>(this.app, 'POST', `/api/adv/campaigns/${c.body.id}/activate`, {
      token: adv.token,
    });
    if (act.status !== 200) throw new Error(`activate: ${JSON.stringify(act.body)}`);
    return { campaign: act.body, creativeId };
  }

  /** One more creative of a campaign's `format`, approved; its id (a phone's portrait picture for an interstitial). */
  async creative(
    adv: Account,
    campaignId: number,
    format: string,
    fields: Record<string, string> = {},
  ): Promise<number> {
    const video = format === 'video' || format === 'floating_video';
    // A pop's creative is its landing page alone.
    const pop = format === 'popunder' || format === 'direct_link';
    const form = creativeForm(
      {
        title: 'Great offer',
        ...(pop ? {} : { body: 'Buy now' }),
        landing_url: 'https://shop.example.com/p?c={click_id}',
        ...(video ? { video_url: 'https://cdn.example.com/v.mp4' } : {}),
        ...fields,
      },
      video || pop
        ? undefined
        : {
            data: makePng(...imageSizeOf(format)),
            name: 'a.png',
            type: 'image/png',
          },
    );
    const cr = await call<{ id: number }>(this.app, 'POST', `/api/adv/campaigns/${campaignId}/creatives`, {
      token: adv.token,
      form,
    });
    if (cr.status !== 201) throw new Error(`creative: ${JSON.stringify(cr.body)}`);
    const approved = await call(this.app, 'POST', `/api/admin/creatives/${cr.body.id}/approve`, {
      token: this.admin.token,
    });
    if (approved.status !== 200) throw new Error(`approve: ${approved.status} ${JSON.stringify(approved.body)}`);
    return cr.body.id;
  }

  /** A new publisher's site, approved (the review is forced through the admin API, as moderation would). */
  async site(): Promise<{ id: number; domain: string; publisher: Account }> {
    const publisher = await account(this.app, 'publisher');
    const domain = `site-${publisher.id}.example`;
    const site = await call<{ id: number }>(this.app, 'POST', '/api/pub/sites', {
      token: publisher.token,
      json: { domain, category: 'news', language: 'en', traffic_estimate_daily: 1000 },
    });
    await this.app.svc.configStore.update<StoredSite>(
      'site',
      site.body.id,
      (s) => ({ value: { ...s, status: 'pending_review' } }),
      () => new Error('no site'),
    );
    await call(this.app, 'POST', `/api/admin/sites/${site.body.id}/approve`, { token: this.admin.token });
    return { id: site.body.id, domain, publisher };
  }

  /** A zone on `site` (a new approved site when none is given). */
  async zone(
    fields: Record<string, unknown>,
    site?: { id: number; publisher: Account },
  ): Promise<{ id: number; subid: string; publisher: Account }> {
    const on = site ?? (await this.site());
    const z = await call<{ id: number; subid: string }>(this.app, 'POST', '/api/pub/zones', {
      token: on.publisher.token,
      json: { site_id: on.id, name: 'zone', ...fields },
    });
    if (z.status !== 201) throw new Error(`zone: ${z.status} ${JSON.stringify(z.body)}`);
    return { ...z.body, publisher: on.publisher };
  }
}

export function bannerRequest(
  over: Record<string, unknown> = {},
  imp: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    id: `req-${Math.random().toString(36).slice(2)}`,
    imp: [{ id: '1', banner: { w: 300, h: 250 }, bidfloor: 0.1, ...imp }],
    site: { domain: 'news.example.org', cat: ['IAB12'] },
    device: {
      ua: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/125.0 Safari/537.36',
      ip: '203.0.113.7',
      devicetype: 2,
      language: 'en',
      geo: { country: 'USA' },
    },
    user: { id: 'u1' },
    tmax: 150,
    ...over,
  };
}

/** The picture a creative of `format` is made with: a size its format accepts. */
function imageSizeOf(format: string): [number, number] {
  if (format === 'banner') return [300, 250];
  if (format === 'interstitial') return [320, 480];
  return [200, 200];
}
