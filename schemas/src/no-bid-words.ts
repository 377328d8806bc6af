import type { NoBidReason } from './events.ts';

/**
 * Why nothing filled a zone, in a publisher's words: what the cabinet's live preview says inside its frame
 * (GET /preview/<subid>, docs/browser-endpoints.md). Keyed by every no-bid reason, so a new reason cannot
 * be added without its words (the type says so, and no-bid-words.test.ts checks none is blank).
 */
export const NO_BID_WORDS: Readonly<Record<NoBidReason, string>> = {
  no_candidates: 'No campaign runs ads of this format and size for your country right now.',
  language: "The campaigns that fit this zone target other languages than your browser's.",
  device_type: 'The campaigns that fit this zone target other device types than yours.',
  os: 'The campaigns that fit this zone target other operating systems than yours.',
  browser: 'The campaigns that fit this zone target other browsers than yours.',
  connection_type: 'The campaigns that fit this zone target other connection types.',
  blocked_category: 'The campaigns that fit this zone are in a category the request blocks.',
  blocked_advertiser: 'The campaigns that fit this zone are from advertisers the request blocks.',
  zone_blocked_vertical: 'You block the verticals of the campaigns that fit this zone (its or its site’s controls).',
  zone_blocked_advertiser:
    'You block the advertisers of the campaigns that fit this zone (its or its site’s controls).',
  below_floor: "Every campaign that fits bids below this zone's floor price.",
  budget: 'The campaigns that fit this zone have spent their budget for now.',
  currency: 'The request asked for a currency other than US dollars.',
  deadline: 'The auction ran out of time.',
  zone_not_serving: 'This zone serves no ads: it is paused, or its site is not approved yet.',
  site_not_approved: 'Your site is not approved yet: its zones serve ads once it is.',
  bot_traffic: 'The request looked like a robot’s, not a person’s browser.',
  native_assets: 'No campaign has a creative with the parts this native zone asks for.',
  pacing: 'The campaigns that fit this zone are spreading their budget over the day and sat this one out.',
  address_flood: 'Too many ad requests came from your address in the last minute.',
  fingerprint_flood: 'Too many ad requests came from your browser in the last minute.',
  foreign_origin: "The page is not on this zone's site.",
  not_started: 'The campaigns that fit this zone have not started yet.',
  ended: 'The campaigns that fit this zone have ended.',
  outside_schedule: 'The campaigns that fit this zone do not run at this hour.',
  frequency_cap: 'You have already seen the campaigns that fit this zone as often as they allow.',
  private_auction: 'The request was for a private deal this network does not hold.',
  privacy: "The request's privacy signals rule out the campaigns that fit this zone.",
  video_duration: 'No video creative has a length the player accepts.',
  source_list: 'The campaigns that fit this zone keep this zone or site off their source list.',
  cpa_excluded: 'The campaigns that fit this zone excluded it: it brought no conversion within their test budget.',
  audience: 'The campaigns that fit this zone show only to audiences you are not in.',
};

/** The words for a paused zone: more to the point than `zone_not_serving`'s, which also covers a site in review. */
export const PAUSED_ZONE_WORDS = 'This zone is paused: resume it to serve ads.';
