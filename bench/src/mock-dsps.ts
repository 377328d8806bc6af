// `tsx bench/src/mock-dsps.ts <count> <minMs> <maxMs>`: demand partners for the fan-out benchmark, in their
// own process so that their work is not counted as the engine's. Each answers a bid request after a
// uniform delay in [minMs, maxMs] with one bid (maxMs 0: at once, with 204); notices get 200. Prints the ports.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const [count, min, max] = process.argv.slice(2).map(Number) as [number, number, number];
const ports: number[] = [];
for (let i = 0; i < count; i++) {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.method !== 'POST' || max === 0) {
        res.statusCode = req.method === 'POST' ? 204 : 200;
        return void res.end();
      }
      const r = JSON.parse(Buffer.concat(chunks).toString()) as { id: string };
      const body = JSON.stringify({
        id: r.id,
        cur: 'USD',
        seatbid: [
          {
            seat: 's',
            bid: [{ id: 'b', impid: '1', price: 20 + i, adm: '<div>ad ${AUCTION_PRICE}</div>', w: 300, h: 250 }],
          },
        ],
      });
      setTimeout(() => res.end(body), min + Math.random() * (max - min));
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  ports.push((server.address() as AddressInfo).port);
}
process.stdout.write(`${JSON.stringify(ports)}\n`);
