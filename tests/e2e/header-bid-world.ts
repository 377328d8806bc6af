import type { AppLike } from '@adnet/test-support/admin';
import { call } from '@adnet/test-support/admin';
import { World } from '@adnet/test-support/world';
import type { TestEngine } from '@adnet/test-support/engine';
import { eventually, startEngine } from '@adnet/test-support/engine';

// What the header bidding tests (header-bid.test.ts, prebid-browser.test.ts) bid on: a site with a banner, a native,
// a floating-video and a paused zone, a campaign of each format, another publisher's zone, and an engine that has them.

export interface HeaderBidWorld {
  engine: TestEngine;
  domain: string;
  campaigns: { banner: number; native: number; video: number };
  zones: Record<'banner' | 'native' | 'video' | 'paused', { id: number; subid: string }>;
  /** Another publisher's zone, on a site of its own. */
  foreignSubid: string;
}

export async function headerBidWorld(
  app: AppLike,
  redisUrl: string,
  /** The banner's landing page for the site's domain. */
  landing?: (domain: string) => string,
): Promise<HeaderBidWorld> {
  const world = await World.create(app);
  const site = await world.site();
  const other = await world.site();
  const adv = await world.advertiser(100_000);
  const campaignOf = async (...args: Parameters<World['campaign']>) => (await world.campaign(...args)).campaign.id;
  const campaigns = {
    banner: await campaignOf(
      adv,
      { format: 'banner', bid_usd: 2 },
      landing ? { landing_url: landing(site.domain) } : {},
    ),
    native: await campaignOf(adv, { format: 'native', bid_usd: 2 }, { cta_text: 'Shop now' }),
    video: await campaignOf(adv, { format: 'floating_video', bid_usd: 4 }),
  };
  const zoneOn = async (on: typeof site, fields: Record<string, unknown>) =>
    (
      await call<{ id: number; subid: string }>(app, 'POST', '/api/pub/zones', {
        token: on.publisher.token,
        json: { site_id: on.id, ...fields },
      })
    ).body;
  const banner = { format: 'banner', banner_width: 300, banner_height: 250 };
  const zones = {
    banner: await zoneOn(site, { name: 'hb banner', ...banner }),
    native: await zoneOn(site, { name: 'hb native', format: 'native' }),
    video: await zoneOn(site, {
      name: 'hb video',
      format: 'floating_video',
      fv_corner: 'br',
      fv_delay_sec: 1,
      fv_freq_cap_hours: 0,
    }),
    paused: await zoneOn(site, { name: 'hb paused', ...banner }),
  };
  await call(app, 'POST', `/api/pub/zones/${zones.paused.id}/pause`, { token: site.publisher.token });
  const foreignSubid = (await zoneOn(other, { name: 'theirs', ...banner })).subid;
  const engine = await startEngine(redisUrl);
  await eventually(() => {
    const index = engine.engine.mirror.index;
    return index?.zones.get(foreignSubid)?.serving === true && index.candidateCount === 3;
  });
  await new Promise((r) => setTimeout(r, 300)); // first budget slices
  return { engine, domain: site.domain, campaigns, zones, foreignSubid };
}
