import type { NoBidReason } from '@adnet/schemas/events';
import type { FallbackAnswer } from '@adnet/schemas/widget';
import type { InventoryControls } from '../index/inventory-controls.ts';

/**
 * Requests refused as invalid traffic get no fallback either: the publisher's backup ad is for people
 * nothing filled, not for bots, floods, or a tag copied onto someone else's page.
 */
const REFUSED: ReadonlySet<NoBidReason> = new Set([
  'bot_traffic',
  'address_flood',
  'fingerprint_flood',
  'foreign_origin',
]);

/** What an unfilled display zone answers instead of nothing: its publisher's fallback, if it has one and the request was a person's. */
export function fallbackFor(controls: InventoryControls | undefined, reason: NoBidReason): FallbackAnswer | undefined {
  const f = controls?.fallback;
  if (!f || f.value === null || REFUSED.has(reason)) return undefined;
  if (f.type === 'html') return { fallback: { type: 'html', value: f.value } };
  return f.type === 'url' ? { fallback: { type: 'url', value: f.value } } : undefined;
}
