// The "About this ad" page (GET /about-ad/<ticket>, routes/about-ad.ts): who showed an ad, for whom, where and why,
// as a small static page. Plain functions of the facts the route found, so the wording is tested without HTTP.

/** Who paid for the ad: one of our advertisers' campaigns, or a demand partner that bought the impression. */
export type AboutBuyer =
  | {
      kind: 'advertiser';
      /** The advertiser's account number with us. */
      advertiserId: number;
      /** The host of the ad's landing page; '' when the ad is gone from the index. */
      landingDomain: string;
      /** The advertiser's name, only where the network already knows one; never looked up for this page. */
      name?: string;
    }
  | { kind: 'partner'; name: string };

/** Why the ad was shown: the zone it filled and what of the visitor its campaign matched. */
export interface AboutWhy {
  /** The ad space, in words ("a native ad"); '' when the ad named no zone of ours. */
  zone: string;
  /** The visitor's country as the request showed it (alpha-2, lower case), '' when unknown. */
  country: string;
  /** The visitor's device type ('desktop', 'mobile', ...), '' when unknown. */
  device: string;
  /** Which of those the campaign targets (it shows only there); false: it shows everywhere. */
  targetsCountry: boolean;
  targetsDevice: boolean;
  /** The campaign shows only to (or never to) members of an advertiser's audience. */
  audience: boolean;
}

export interface AboutAdFacts {
  /** Our domain, as sellers.json and our publishers' ads.txt name us. */
  network: string;
  /** Where to report an ad (NETWORK_CONTACT): an email address or an http(s) URL; undefined when not configured. */
  contact: string | undefined;
  /** The site the ad was shown on (its domain), '' when the ad named none of ours. */
  site: string;
  buyer: AboutBuyer;
  why: AboutWhy;
  /** A live preview's ad: shown to the publisher in the cabinet, counted and charged nothing. */
  preview: boolean;
}

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
/** Text for an HTML text node or a quoted attribute. */
export const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ESCAPES[c] as string);

const regions = new Intl.DisplayNames(['en'], { type: 'region' });
const countryName = (cc: string): string => {
  try {
    return regions.of(cc.toUpperCase()) ?? cc.toUpperCase();
  } catch {
    return cc.toUpperCase();
  }
};

const STYLE =
  'body{font:16px/1.5 system-ui,sans-serif;max-width:40em;margin:2em auto;padding:0 1em;color:#222}' +
  'h1{font-size:1.4em}dt{font-weight:600;margin-top:1em}dd{margin:0}';

/** The page around a body: no script, no outside resource; the route's CSP forbids both anyway. */
const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">` +
  `<meta name="referrer" content="no-referrer"><title>${escapeHtml(title)}</title><style>${STYLE}</style></head>` +
  `<body><main>${body}</main></body></html>`;

function buyerText(b: AboutBuyer): string {
  if (b.kind === 'partner')
    return `A demand partner, ${b.name}, bought this ad space in our auction and supplied the ad. We passed its ad on; the partner knows its advertiser.`;
  const who = b.name ? `${b.name} (advertiser account ${b.advertiserId})` : `Advertiser account ${b.advertiserId}`;
  return b.landingDomain ? `${who}, advertising ${b.landingDomain}.` : `${who}.`;
}

function whyText(w: AboutWhy, buyer: AboutBuyer): string {
  const where = w.zone
    ? `This page has ${w.zone} space served by our network`
    : 'The ad space was offered to our network';
  const matched: string[] = [];
  if (w.country) matched.push(`your country as your connection shows it (${countryName(w.country)})`);
  if (w.device) matched.push(`your device type (${w.device})`);
  const facts = matched.length ? ` The ad request showed ${matched.join(' and ')}.` : '';
  const targets =
    buyer.kind === 'advertiser'
      ? w.targetsCountry || w.targetsDevice
        ? ` The campaign shows only to visitors ${[w.targetsCountry ? 'in the countries' : '', w.targetsDevice ? 'on the device types' : ''].filter(Boolean).join(' and ')} it chose.`
        : ' The campaign does not limit the countries or devices it shows to.'
      : '';
  const profile = w.audience
    ? ' The campaign shows to an audience: people whose browser was on the advertiser’s site or saw its earlier ads (our own cookie or this site’s first-party id); yours was counted in it.'
    : ' No personal profile of you was used.';
  return `${where}, and this ad won its auction.${facts}${targets}${profile}`;
}

function contactText(network: string, contact: string | undefined): string {
  if (!contact) return `Write to the operators of ${escapeHtml(network)}.`;
  const href = contact.includes('@') && !/^https?:/.test(contact) ? `mailto:${contact}` : contact;
  return `<a href="${escapeHtml(href)}" rel="noopener noreferrer">${escapeHtml(contact)}</a>`;
}

/** The "About this ad" page: every fact escaped, no script, nothing loaded from elsewhere. */
export function aboutAdPage(f: AboutAdFacts): string {
  const rows: [string, string][] = [
    ['Shown by', `${escapeHtml(f.network)}, the advertising network that served this ad.`],
    ['Paid for by', escapeHtml(buyerText(f.buyer))],
    ['Shown on', f.site ? escapeHtml(f.site) : 'A site outside our network, through an exchange.'],
    ['Why you saw it', escapeHtml(whyText(f.why, f.buyer))],
    ['Report this ad', contactText(f.network, f.contact)],
  ];
  const preview = f.preview
    ? '<p><strong>This is a preview</strong>: the publisher looked at the ad space. Nothing was counted or charged.</p>'
    : '';
  return page(
    'About this ad',
    `<h1>About this ad</h1>${preview}<dl>${rows.map(([t, d]) => `<dt>${t}</dt><dd>${d}</dd>`).join('')}</dl>`,
  );
}

/** A link that is not a ticket of ours, or no longer one: nothing to tell, in a page. */
export const aboutAdNotFoundPage = (): string =>
  page('Ad not found', '<h1>Ad not found</h1><p>This link names no ad we can tell you about.</p>');
