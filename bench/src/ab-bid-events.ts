// `tsx bench/src/ab-bid-events.ts <before-checkout> <after-checkout>`: the OpenRTB route's events as built
// before (request facts spread into a literal, then again by makeEvent) and after (one literal each,
// engine/src/events/bid-events.ts), over the same facts: per request one bid and one no-bid event.
import { resolve } from 'node:path';
import type * as MakeEvent from '@adnet/engine/make-event';
import type * as BidEvents from '@adnet/engine/bid-events';
import { alternate, clockUs } from './ab-trees.ts';

const facts = Array.from({ length: 1_000 }, (_, i) => ({
  ts: 1_800_000_000_000 + i,
  engine: 'engine-1',
  auction_id: `auction-${i}`,
  partner_id: 1,
  country: 'us',
  device: 'mobile',
  os: 'android' as const,
  browser: 'chrome' as const,
  site_domain: 'news.example.com',
  source: i % 3 === 0 ? undefined : 'news.example.com',
  integration: 'openrtb' as const,
}));
const inventory = { publisherId: 0, siteId: 0, zoneId: 0, source: 'news.example.com' };
const ad = { campaignId: 17, creativeId: 51, advertiserId: 3 };
const kept: unknown[] = [];

function before(m: typeof MakeEvent) {
  return () => {
    const t = clockUs();
    for (let k = 0; k < 50; k++)
      for (const f of facts) {
        kept.push(m.makeEvent('nobid', { imp_id: '2', reason: 'no_candidates', ...f }));
        const a = {
          bid_id: 'bid-1',
          ...m.inventoryFacts(inventory),
          campaign_id: ad.campaignId,
          creative_id: ad.creativeId,
          advertiser_id: ad.advertiserId,
        };
        kept.push(
          m.makeEvent('bid', { imp_id: '1', ...a, price_micro_cents: 150_000, ...f, auction_id: f.auction_id }),
        );
      }
    kept.length = 0;
    return { us: (clockUs() - t) / (50 * facts.length), ok: facts.length };
  };
}
function after(m: typeof BidEvents) {
  return () => {
    const t = clockUs();
    for (let k = 0; k < 50; k++)
      for (const f of facts) {
        kept.push(m.noBidEvent(f, 'no_candidates', '2'));
        kept.push(m.bidEvent(f, inventory, 'bid-1', ad, '1', 150_000, f.auction_id));
      }
    kept.length = 0;
    return { us: (clockUs() - t) / (50 * facts.length), ok: facts.length };
  };
}

const [old, now] = await Promise.all([
  import(`${resolve(process.argv[2] ?? '.')}/engine/src/events/make-event.ts`) as Promise<typeof MakeEvent>,
  import(`${resolve(process.argv[3] ?? '.')}/engine/src/events/bid-events.ts`) as Promise<typeof BidEvents>,
]);
alternate(before(old), after(now));
