import type { VERTICALS } from './api.ts';

/**
 * IAB content categories (taxonomy 1.0) that each campaign vertical is
 * declared as, for OpenRTB `bcat` blocking. A `bcat` entry blocks its
 * subcategories too (`IAB9` blocks `IAB9-7`).
 */
export const VERTICAL_IAB: Record<(typeof VERTICALS)[number], readonly string[]> = {
  gambling: ['IAB9-7'],
  betting: ['IAB9-7', 'IAB17'],
  dating: ['IAB14-1'],
  nutra: ['IAB7'],
  finance: ['IAB13'],
  crypto: ['IAB13'],
  ecommerce: ['IAB22'],
  mobile_apps: ['IAB19'],
  software: ['IAB19'],
  games: ['IAB9-30'],
  sweepstakes: ['IAB9'],
  travel: ['IAB20'],
  education: ['IAB5'],
  entertainment: ['IAB1'],
  health: ['IAB7'],
  vpn: ['IAB19'],
  other: ['IAB24'],
};

/** True when a blocked category equals `cat` or is its parent. */
export function iabBlocks(blocked: string, cat: string): boolean {
  return cat === blocked || (cat.startsWith(blocked) && cat.charAt(blocked.length) === '-');
}
