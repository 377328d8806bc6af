import { TICKET_MAX_AGE_S, ticketExpired } from '../../auction/ticket-age.ts';
import type { EngineContext } from '../../context.ts';
import { decodeDemandTicket, isDemandToken } from '../../demand/demand-ticket.ts';
import type { EngineIndex } from '../../index/engine-index.ts';
import { aboutAdNotFoundPage, aboutAdPage } from '../../serving/about-ad.ts';
import type { AboutAdFacts, AboutBuyer } from '../../serving/about-ad.ts';
import { decodeTicket } from '../../tracking/signed-token.ts';
import type { BidTicket } from '../../tracking/signed-token.ts';
import type { EngineReply, EngineRequest } from '../adapt.ts';
import { previewSecret } from './preview.ts';

/** A page of ours that runs nothing, loads nothing from elsewhere and tells no one where it was opened from. */
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'",
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
  'cache-control': 'private, max-age=300',
};

const notFound = (): EngineReply => ({ status: 404, headers: HEADERS, body: aboutAdNotFoundPage() });

const hostOf = (url: string | undefined): string => {
  try {
    return url ? new URL(url).hostname : '';
  } catch {
    return '';
  }
};

/** The zone's ad space in words: "a native ad", "a 300x250 banner ad". A walk of the zones: this page is rare, not a hot path. */
function zoneWords(index: EngineIndex, zoneId: number): string {
  if (!zoneId) return '';
  for (const entry of index.zones.values()) {
    const z = entry.zone;
    if (z.id !== zoneId) continue;
    const size = z.banner_width ? `${z.banner_width}x${z.banner_height} ` : '';
    return `a ${size}${z.format.replace(/_/g, ' ')} ad`;
  }
  return '';
}

interface Where {
  zoneId: number;
  siteId: number;
  country: string;
  device: string;
}

// eslint-disable-next-line @typescript-eslint/max-params -- one page's facts, from two kinds of ticket
function facts(
  ctx: EngineContext,
  index: EngineIndex,
  where: Where,
  buyer: AboutBuyer,
  preview: boolean,
): AboutAdFacts {
  return {
    network: ctx.network.domain,
    contact: ctx.network.contact,
    site: index.sites.get(where.siteId)?.domain ?? '',
    buyer,
    why: {
      zone: zoneWords(index, where.zoneId),
      country: where.country,
      device: where.device,
      targetsCountry: false,
      targetsDevice: false,
      audience: false,
    },
    preview,
  };
}

/** Our campaign's ad: the advertiser's account and landing domain, and what of the visitor its campaign targets. */
function campaignFacts(ctx: EngineContext, index: EngineIndex, t: BidTicket, preview: boolean): AboutAdFacts {
  const campaign = index.campaigns.get(t.campaignId);
  const creative = index.creatives.get(t.creativeId);
  const f = facts(
    ctx,
    index,
    t,
    { kind: 'advertiser', advertiserId: t.advertiserId, landingDomain: hostOf(creative?.landing_url) },
    preview,
  );
  if (campaign) {
    f.why.targetsCountry = campaign.geo_include.length > 0;
    f.why.targetsDevice = campaign.device_types.length > 0;
    f.why.audience = (campaign.audiences_include ?? []).length > 0 || (campaign.audiences_exclude ?? []).length > 0;
  }
  return f;
}

/**
 * GET /about-ad/<ticket>: the "About this ad" page every ad the widget renders links to (docs/browser-endpoints.md).
 * Our ticket (or a live preview's), or a partner's: a small HTML page; anything else, or a ticket too old, a plain
 * 404 page. It counts nothing, and it never answers 5xx for a link someone made up.
 */
export function aboutAdRoute(ctx: EngineContext) {
  const preview = previewSecret(ctx.secret);
  return (req: EngineRequest): EngineReply => {
    const token = req.params[0] ?? '';
    const index = ctx.index();
    if (!index) return notFound();
    const now = Date.now();
    if (isDemandToken(token)) {
      const d = decodeDemandTicket(ctx.secret, token);
      if (!d || now / 1000 - d.issuedAt > TICKET_MAX_AGE_S.about) return notFound();
      const partner = index.demandPartners.find((p) => p.id === d.partnerId);
      const buyer: AboutBuyer = { kind: 'partner', name: partner?.name ?? `partner ${d.partnerId}` };
      return { status: 200, headers: HEADERS, body: aboutAdPage(facts(ctx, index, d, buyer, false)) };
    }
    const own = decodeTicket(ctx.secret, token);
    const t = own ?? decodeTicket(preview, token);
    if (!t || ticketExpired(t, 'about', now)) return notFound();
    return { status: 200, headers: HEADERS, body: aboutAdPage(campaignFacts(ctx, index, t, own === undefined)) };
  };
}
