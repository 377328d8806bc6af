import { hmacSha256 } from './hmac.ts';

/**
 * The click id of a ticket: every click on one served ad carries the same id (UUID-shaped, so
 * trackers take it as any click id), derived under the tracking secret so it cannot be guessed from
 * the bid id. One id per ticket means one click record per ticket, however often the link is hit.
 */
export function clickIdOf(secret: string, bidId: string): string {
  const h = hmacSha256(secret, `click:${bidId}`);
  h[6] = ((h[6] as number) & 0x0f) | 0x40;
  h[8] = ((h[8] as number) & 0x3f) | 0x80;
  const x = h.subarray(0, 16).toString('hex');
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`;
}
