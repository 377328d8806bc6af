// `tsx bench/src/ab-ticket.ts <before-checkout> <after-checkout>`: signing and checking bid tickets
// (engine/src/tracking/signed-token.ts) of two trees timed in one process, over the same tickets: a change
// of a microsecond drowns in the whole bid handler's noise on a shared machine, not here.
import type * as SignedToken from '@adnet/engine/signed-token';
import { alternate, clockUs } from './ab-trees.ts';

const secret = 'bench-secret-'.padEnd(40, 'x');
const tickets = Array.from({ length: 1_000 }, (_, i) => ({
  bidId: `0b8f3c1e-5d2a-4c7b-9e61-${String(i).padStart(12, '0')}`,
  campaignId: 1 + (i % 10_000),
  advertiserId: 1 + (i % 500),
  creativeId: 1 + (i % 30_000),
  priceMicroCents: 150_000 + i,
  issuedAt: 1_800_000_000 + i,
  engine: 'engine-1',
  partnerId: 1,
  country: 'us',
  device: 'mobile',
  publisherId: 0,
  siteId: 0,
  zoneId: 0,
  surface: 'openrtb' as const,
  ipPrefix: '203.0.113.0',
  uaHash: 'abcd1234',
  test: false,
  os: 'android',
  browser: 'chrome',
  user: '',
  source: 'news.example.com',
  clickMicroCents: 0,
  format: 'banner' as const,
  integration: 'openrtb' as const,
}));

function timer(m: typeof SignedToken) {
  return () => {
    let ok = 0;
    const t = clockUs();
    for (let k = 0; k < 20; k++)
      for (const ticket of tickets) if (m.decodeTicket(secret, m.encodeTicket(secret, ticket))) ok++;
    return { us: (clockUs() - t) / (20 * tickets.length), ok };
  };
}

const load = (root: string) => import(`${root}/engine/src/tracking/signed-token.ts`) as Promise<typeof SignedToken>;
const [before, after] = await Promise.all([load(process.argv[2] ?? '.'), load(process.argv[3] ?? '.')]);
alternate(timer(before), timer(after));
