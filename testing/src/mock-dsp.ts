import { createServer } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What a mock DSP answers to one bid request (after `delayMs`). */
export interface DspReply {
  delayMs?: number;
  status?: number;
  /** A JSON value, or raw text (garbage). */
  body?: unknown;
}

export interface SeenRequest {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: string;
  socket: Socket;
}

/**
 * A demand partner speaking OpenRTB 2.5 over real HTTP, in-process: POST / is a bid request answered
 * by `answer`; every GET (win, billing and loss notices) is recorded and answered 200 (or `noticeStatus`).
 */
export class MockDsp {
  readonly bids: SeenRequest[] = [];
  readonly notices: SeenRequest[] = [];
  readonly sockets = new Set<Socket>();
  noticeStatus = 200;
  private server!: Server;
  base = '';

  constructor(public answer: (request: Record<string, unknown>) => DspReply) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const seen = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString(),
          socket: req.socket,
        };
        this.sockets.add(req.socket);
        if (req.method !== 'POST') {
          this.notices.push(seen);
          res.statusCode = this.noticeStatus;
          return void res.end();
        }
        this.bids.push(seen);
        let parsed: Record<string, unknown> = {};
        try {
          parsed = JSON.parse(seen.body) as Record<string, unknown>;
        } catch {
          // the answer decides
        }
        const a = this.answer(parsed);
        setTimeout(() => {
          if (res.destroyed) return;
          res.statusCode = a.status ?? 200;
          if (a.body === undefined) return void res.end();
          res.setHeader('content-type', 'application/json');
          res.end(typeof a.body === 'string' ? a.body : JSON.stringify(a.body));
        }, a.delayMs ?? 0);
      });
    });
    this.server.keepAliveTimeout = 30_000;
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.base = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  noticesOf(kind: string): SeenRequest[] {
    return this.notices.filter((n) => n.path.startsWith(`/${kind}`));
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((r) => this.server.close(() => r()));
  }
}

/**
 * A bid response for the request's one imp at `price` (CPM USD) with markup `adm`, with notices on the DSP's
 * own server; the bid's other fields (`w`, `h`, ...) override the defaults.
 */
export function bidFor(
  dsp: MockDsp,
  request: Record<string, unknown>,
  { price, adm, ...extra }: { price: number; adm: string; [field: string]: unknown },
) {
  const imp = (request.imp as { id: string }[] | undefined)?.[0];
  return {
    id: request.id,
    cur: 'USD',
    seatbid: [
      {
        seat: 'seat-1',
        bid: [
          {
            id: `bid-${Math.random().toString(36).slice(2, 8)}`,
            impid: imp?.id ?? '1',
            price,
            adm,
            nurl: `${dsp.base}/nurl?price=\${AUCTION_PRICE}&id=\${AUCTION_ID}`,
            burl: `${dsp.base}/burl?price=\${AUCTION_PRICE}&imp=\${AUCTION_IMP_ID}`,
            lurl: `${dsp.base}/lurl?loss=\${AUCTION_LOSS}&price=\${AUCTION_PRICE}&bid=\${AUCTION_BID_ID}&seat=\${AUCTION_SEAT_ID}&cur=\${AUCTION_CURRENCY}`,
            crid: 'cr-1',
            adomain: ['dsp.example'],
            w: 300,
            h: 250,
            ...extra,
          },
        ],
      },
    ],
  };
}
