import type { BidResponse } from '@adnet/schemas/openrtb';
import { expect } from 'vitest';
import { postBid } from './engine.ts';
import type { TestEngine } from './engine.ts';
import { bannerRequest } from './world.ts';

/**
 * Bids round-robin over the engines and wins every bid at our price ($5 CPM, set by a
 * $5 floor: 0.5 cents an impression) until none of them bids any more.
 */
export async function drainBudget(
  engines: TestEngine[],
  country: string,
  via?: { base: string; headers: Record<string, string> },
): Promise<{ wins: number; nobidsAfter: number }> {
  let wins = 0;
  let quiet = 0;
  for (let i = 0; i < 3_000 && quiet < 40; i++) {
    // Round-robin over the engines, or everything through one address (a load balancer).
    const base = via?.base ?? (engines[i % engines.length] as TestEngine).base;
    const r = await postBid(
      base,
      bannerRequest({ device: { geo: { country }, language: 'en' } }, { bidfloor: 5 }),
      via?.headers,
    );
    const bid = r.status === 200 ? (r.body as unknown as BidResponse).seatbid[0]?.bid[0] : undefined;
    if (!bid) {
      quiet++;
      await new Promise((res) => setTimeout(res, 25));
      continue;
    }
    quiet = 0;
    expect(bid.price).toBe(5);
    const answer = await fetch(bid.nurl.replace('${AUCTION_PRICE}', '5'), { headers: via?.headers });
    const win = (await answer.json()) as { counted?: boolean };
    expect(win, `win notice answered ${answer.status}`).toMatchObject({ counted: true });
    wins++;
  }
  await Promise.all(engines.map((e) => e.engine.budget.flush()));
  return { wins, nobidsAfter: quiet };
}
