// The floor: what the transport plus only the work every answer of a path cannot skip costs, run in the same
// benchmark as the engine and the bare handler (run-wrk.ts). Whatever the engine's rules cost comes on top of
// this, so a goal stated as a share of bare uWS that this handler does not reach is out of reach of any engine
// built from these parts. The parts are the engine's own cheapest ones:
// - bid: the whole request through JSON.parse (refusing any invalid byte), one signed ticket, one event, the
//   answer through JSON.stringify;
// - /imp: one signed ticket, one event, a JSON answer;
// - /b and /c: the ticket's signature checked, its once-only mark in the shared Redis (the same batched script
//   call per event-loop turn as the engine), one event, then the pixel or the redirect.
// No targeting, budgets, pacing, fraud rules, frequency caps or adapter: those are the engine's rules.
import { loadNativeUws } from '@adnet/engine/uws';
import { EventBatcher } from '@adnet/engine/event-batcher';
import { randomUuid } from '@adnet/engine/random-uuid';
import { RedisCounters } from '@adnet/engine/counters';
import { decodeTicket, encodeTicket } from '@adnet/engine/signed-token';
import type { BidTicket } from '@adnet/engine/signed-token';
import type { EngineEvent } from '@adnet/schemas/events';
import type { HttpResponse } from 'uWebSockets.js';
import { Redis } from 'ioredis';

const uws = loadNativeUws();
const port = Number(process.env.PORT ?? 0);
const secret = process.env.TRACKING_SECRET ?? '';
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
const counters = new RedisCounters(redis);
const events = new EventBatcher({ redis, flushMs: 100, batchMax: 500, bufferMax: 200_000, streamMaxLen: 1_000_000 });
events.start();

const ticketOf = (bidId: string, surface: BidTicket['surface']): BidTicket => ({
  bidId,
  campaignId: 1,
  advertiserId: 1,
  creativeId: 1,
  priceMicroCents: 150_000,
  issuedAt: Math.floor(Date.now() / 1000),
  engine: 'floor',
  partnerId: 1,
  country: 'US',
  device: 'desktop',
  publisherId: 0,
  siteId: 0,
  zoneId: 0,
  surface,
  ipPrefix: '',
  uaHash: '',
  test: false,
  os: '',
  browser: '',
  user: '',
  source: '',
  clickMicroCents: 0,
  format: '',
  integration: surface,
});
const bidEventOf = (bidId: string, impId: string, auctionId: string): EngineEvent => ({
  id: randomUuid(),
  type: 'bid',
  imp_id: impId,
  bid_id: bidId,
  campaign_id: 1,
  creative_id: 1,
  advertiser_id: 1,
  price_micro_cents: 150_000,
  ts: Date.now(),
  engine: 'floor',
  auction_id: auctionId,
  partner_id: 1,
  country: 'US',
  device: 'desktop',
});

/** What a counted ticket's event carries, whichever it is. */
const ofTicket = (t: BidTicket, ts: number) => ({
  id: randomUuid(),
  ts,
  engine: 'floor',
  bid_id: t.bidId,
  campaign_id: t.campaignId,
  creative_id: t.creativeId,
  advertiser_id: t.advertiserId,
  charge_nano: 0,
});
const impressionOf = (t: BidTicket, ts: number): EngineEvent => ({
  ...ofTicket(t, ts),
  type: 'impression',
  price_micro_cents: t.priceMicroCents,
});
const clickOf = (t: BidTicket, ts: number): EngineEvent => ({
  ...ofTicket(t, ts),
  type: 'click',
  click_id: t.bidId,
  invalid: false,
});

/** What a reply holds besides its status. */
interface ReplyParts {
  header?: [string, string];
  body?: string;
}

function answer(res: HttpResponse, aborted: { is: boolean }, status: string, { header, body }: ReplyParts = {}): void {
  if (aborted.is) return;
  res.cork(() => {
    res.writeStatus(status);
    if (header) res.writeHeader(header[0], header[1]);
    res.end(body);
  });
}

/** A ticket's once-only mark, then its event: what /b and /c share. */
function countTicket(
  res: HttpResponse,
  token: string,
  kind: 'imp' | 'click',
  { status, header }: { status: string; header?: [string, string] },
): void {
  const aborted = { is: false };
  res.onAborted(() => (aborted.is = true));
  const ticket = decodeTicket(secret, token);
  if (!ticket) return answer(res, aborted, '404 Not Found');
  const now = Date.now();
  counters.countOnce(kind, ticket.bidId).then(
    (first) => {
      if (first) events.push(kind === 'imp' ? impressionOf(ticket, now) : clickOf(ticket, now));
      answer(res, aborted, status, { header });
    },
    () => answer(res, aborted, '503 Service Unavailable'),
  );
}

uws
  .App()
  .post('/openrtb/bid', (res) => {
    const aborted = { is: false };
    res.onAborted(() => (aborted.is = true));
    const chunks: Buffer[] = [];
    res.onData((chunk, isLast) => {
      chunks.push(Buffer.from(chunk.slice(0)));
      if (!isLast) return;
      let request: { id?: unknown; imp?: { id?: unknown }[] };
      try {
        request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof request;
      } catch {
        return answer(res, aborted, '400 Bad Request');
      }
      const impId = request.imp?.[0]?.id;
      if (typeof request.id !== 'string' || typeof impId !== 'string') return answer(res, aborted, '400 Bad Request');
      const bidId = randomUuid();
      const token = encodeTicket(secret, ticketOf(bidId, 'openrtb'));
      events.push(bidEventOf(bidId, impId, request.id));
      const body = JSON.stringify({
        id: request.id,
        cur: 'USD',
        seatbid: [
          {
            seat: 'adnet',
            bid: [
              {
                id: bidId,
                impid: impId,
                price: 1.5,
                adm: `<a href="https://ads.example/c/${token}/t"></a>`,
                nurl: `https://ads.example/win/${token}?p=\${AUCTION_PRICE}`,
              },
            ],
          },
        ],
      });
      answer(res, aborted, '200 OK', { header: ['content-type', 'application/json'], body });
    });
  })
  .get('/imp', (res, req) => {
    const zone = new URLSearchParams(req.getQuery() ?? '').get('z') ?? '';
    const bidId = randomUuid();
    const token = encodeTicket(secret, ticketOf(bidId, 'widget'));
    events.push(bidEventOf(bidId, zone, bidId));
    const body = JSON.stringify({ html: '<a></a>', click: `/c/${token}/t`, beacon: `/b/${token}` });
    res.cork(() => res.writeStatus('200 OK').writeHeader('content-type', 'application/json').end(body));
  })
  .get('/b/:ticket', (res, req) => countTicket(res, req.getParameter(0) ?? '', 'imp', { status: '204 No Content' }))
  .get('/c/:ticket/:token', (res, req) =>
    countTicket(res, req.getParameter(0) ?? '', 'click', {
      status: '302 Found',
      header: ['location', 'https://landing.example/'],
    }),
  )
  .listen('127.0.0.1', port, (socket) => {
    if (!socket) process.exit(1);
    process.send?.({ type: 'listening', port: uws.us_socket_local_port(socket) });
  });
// An exit, not a kill, so a profile asked for with --cpu-prof is written.
process.once('SIGTERM', () => process.exit(0));
