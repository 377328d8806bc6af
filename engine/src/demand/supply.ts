import type { DemandOpenRtbVersion, DemandPartner } from '@adnet/schemas/demand';
import type { Integration } from '@adnet/schemas/events';
import type { VastVersion } from '@adnet/schemas/vast';
import { partnerVastVersion } from './vast-wrapper.ts';
import { randomUuid } from '../events/random-uuid.ts';
import type { BidBudget } from '../auction/ports.ts';
import type { Served, ServeOutcome } from '../auction/serve.ts';
import type { PartnerLimiter } from '../partners/partner-limiter.ts';
import { decodeTicket, encodeTicket } from '../tracking/signed-token.ts';
import type { CircuitBreaker } from './breaker.ts';
import { buildSupplyRequest, SUPPLY_IMP_ID } from './build-request.ts';
import { bodyFor, ourSupplyChain, versionOf } from './supply-chain.ts';
import type { SupplyImp } from './build-request.ts';
import { decide } from './clearing.ts';
import type { DemandStats } from './demand-stats.ts';
import { encodeDemandTicket } from './demand-ticket.ts';
import type { DemandSurface } from './demand-ticket.ts';
import type { DspAnswer } from './dsp-client.ts';
import { LOSS, priceMacro, substituteMacros } from './macros.ts';
import type { AuctionMacros } from './macros.ts';
import type { Notifier } from './notices.ts';
import { isBlockedDomain, isPushShaped, readNativeAnswer, readPushAnswer } from './native.ts';
import type { AnswerRead, NativeAnswer, PushAnswer } from './native.ts';
import { readBidResponse } from './read-response.ts';
import type { PartnerBid } from './read-response.ts';
import type { WinStore } from './win-store.ts';

export interface SupplyDeps {
  client: {
    postBid(
      partner: { id: number; endpoint: string },
      body: string,
      timeoutMs: number,
      version: DemandOpenRtbVersion,
    ): Promise<DspAnswer>;
  };
  breaker: CircuitBreaker;
  /** Demand partners' QPS (their own limiter: their ids are not exchange partners' ids). */
  limiter: PartnerLimiter;
  stats: DemandStats;
  notifier: Notifier;
  wins: WinStore;
  secret: string;
  baseUrl: string;
  /** Our domain in the supply chain we send (`asi`): the public base URL's host, as in ads.txt and sellers.json. */
  sellerDomain: string;
  budget: BidBudget;
  /** Monotonic milliseconds, for the deadline. */
  now: () => number;
}

/** A partner's win: its markup for a page or player, read into our own ad's fields on a native or push zone. */
export interface PartnerWin {
  kind: 'partner';
  partnerId: number;
  auctionId: string;
  token: string;
  /** The partner's markup, its macros filled. */
  adm: string;
  w: number | undefined;
  h: number | undefined;
  /** A video answer's `bid.protocol` (OpenRTB 2.6), when the partner said it: the VAST version our wrapper follows. */
  protocol: number | undefined;
  priceMicroCents: number;
  /** A native zone: the fields our widget's native card shows. */
  native: NativeAnswer | undefined;
  /** A push slot or an in-page push zone: what the notification shows. */
  push: PushAnswer | undefined;
  /**
   * The win and billing notices, macros filled. A page's or player's win notice is sent here at once; a
   * push slot's two are the push sender's to send once the notification is delivered (partnerDelivered).
   */
  nurl: string | undefined;
  burl: string | undefined;
}

/** The auction's outcome for the route: our campaign's ad, a partner's, or nothing. */
export type SupplyOutcome = { kind: 'own'; served: Served } | PartnerWin | { kind: 'none' };

/** A partner's answer read for a zone whose ads we render ourselves (one of the two is set). */
interface ReadAnswer {
  native: NativeAnswer | undefined;
  push: PushAnswer | undefined;
}

/**
 * A partner's answer read as the zone's format asks: a Native card for a native zone, a notification
 * for a push slot or an in-page push zone; undefined for formats whose markup is shown as it is (banner, video).
 */
function readAnswer(
  format: string,
  adm: string,
  blocked: ReadonlySet<string> | null,
): AnswerRead<ReadAnswer> | undefined {
  const as = <T>(r: AnswerRead<T>, wrap: (a: T) => ReadAnswer): AnswerRead<ReadAnswer> =>
    r.ok ? { ok: true, answer: wrap(r.answer) } : r;
  if (format === 'native') return as(readNativeAnswer(adm, blocked), (native) => ({ native, push: undefined }));
  if (isPushShaped(format)) return as(readPushAnswer(adm, blocked), (push) => ({ native: undefined, push }));
  return undefined;
}

const VAST_ORDER: Readonly<Record<VastVersion, number>> = { '2.0': 2, '3.0': 3, '4.0': 4 };

/** Whether a partner takes this format and this viewer's country (none listed: every country). */
export const takes = (p: DemandPartner, format: string, country: string | undefined): boolean =>
  p.formats.includes(format as DemandPartner['formats'][number]) &&
  (p.countries.length === 0 || (country !== undefined && p.countries.includes(country)));

/**
 * The partners that may bid on one impression: enabled (the index holds only those), taking the
 * zone's format and the viewer's country, within their QPS, circuit not open. Undefined, allocating
 * nothing, when there are none: the path without partners stays as fast as it was.
 */
// eslint-disable-next-line @typescript-eslint/max-params -- hot path: runs for every impression a partner may bid on; allocates nothing when none may
export function eligiblePartners(
  deps: Pick<SupplyDeps, 'breaker' | 'limiter'>,
  partners: readonly DemandPartner[],
  format: string,
  country: string | undefined,
  now: number,
  onSkip?: (id: number, why: 'skipped_qps' | 'skipped_open') => void,
  /** The share of each partner's QPS left to callers that keep none (push keeps PUSH_QPS_KEEP for page views). */
  keepShare = 0,
): DemandPartner[] | undefined {
  if (partners.length === 0) return undefined;
  let out: DemandPartner[] | undefined;
  for (const p of partners) {
    if (!takes(p, format, country)) continue;
    if (!deps.limiter.take(p.id, p.qps_limit, keepShare)) {
      onSkip?.(p.id, 'skipped_qps');
      continue;
    }
    if (!deps.breaker.allow(p.id, now)) {
      onSkip?.(p.id, 'skipped_open');
      continue;
    }
    (out ??= []).push(p);
  }
  return out;
}

export interface SupplyAuctionInput {
  partners: readonly DemandPartner[];
  imp: Omit<SupplyImp, 'auctionId' | 'tmaxMs'>;
  /** Our campaigns' outcome, already held from their budget. */
  own: ServeOutcome;
  /** When the request was taken (deps.now()), and the whole auction's budget. */
  startedAt: number;
  auctionTimeoutMs: number;
  surface: DemandSurface;
  /** How the request reached us: its events' `integration`; absent, the surface's (Prebid's `/hb/bid` shares the widget's and the player's). */
  integration?: Integration;
  /** The publisher's blocked landing domains: a native or push answer's landing, which we redirect to, is checked against them. */
  blockedDomains?: ReadonlySet<string> | null;
  /** What the impression's event says beyond the request (demandImpression): browser family and the zone's source. */
  browser?: string;
  source?: string;
}

/**
 * One auction per impression between our campaigns' best bid and every eligible partner's: the
 * request goes to all of them at once, each given min(its timeout, what is left of the auction's
 * budget); answers are checked (read-response.ts), counted, and the circuit told; then one second
 * price auction (clearing.ts). The winner's win notice is sent when its ad is served, its billing
 * notice when our impression tracker counts it (see demandImpression), losers' loss notices at once.
 * A push slot's ad is served only when the push service takes the notification: its win notice is then
 * the push sender's to send (push-sender.ts), with its billing notice, as a push impression counts at delivery.
 */
export async function supplyAuction(deps: SupplyDeps, input: SupplyAuctionInput): Promise<SupplyOutcome> {
  const auctionId = randomUuid();
  const remaining = Math.max(0, input.auctionTimeoutMs - (deps.now() - input.startedAt));
  const blocked = input.blockedDomains ?? null;
  const built = buildSupplyRequest({ ...input.imp, auctionId, tmaxMs: Math.max(1, Math.floor(remaining)) });
  // The publisher's block list goes out as `badv`, and a bid declaring a blocked advertiser is discarded anyway.
  const request = blocked ? { ...built, badv: [...blocked] } : built;
  // Our node of the supply chain; the chain's place depends on the partner's version: one body per version, made when needed.
  const chain = ourSupplyChain(deps.sellerDomain, String(input.imp.site.publisher_id));
  const bodies: Partial<Record<DemandOpenRtbVersion, string>> = {};
  const bodyOf = (v: DemandOpenRtbVersion): string => (bodies[v] ??= bodyFor(request, v, chain));
  const floor = input.imp.floorMicroCents;
  const format = input.imp.zone.format;
  const read = new Map<PartnerBid, ReadAnswer>();
  const answers = await Promise.all(
    input.partners.map((p) => {
      deps.stats.add(p.id, 'requests');
      const version = versionOf(p);
      const timeout = Math.max(1, Math.min(p.timeout_ms, remaining));
      return deps.client.postBid(p, bodyOf(version), timeout, version);
    }),
  );
  const bids: PartnerBid[] = [];
  const clock = Date.now();
  input.partners.forEach((p, i) => {
    const a = answers[i] as DspAnswer;
    if (a.kind === 'nobid') {
      deps.stats.add(p.id, 'nobids');
      deps.breaker.success(p.id);
    } else if (a.kind === 'timeout') {
      deps.stats.add(p.id, 'timeouts');
      deps.breaker.failure(p.id, clock);
    } else if (a.kind === 'error' || a.kind === 'refused') {
      deps.stats.add(p.id, 'errors');
      deps.breaker.failure(p.id, clock);
    } else {
      const got = readBidResponse(a.body, p.id, auctionId, SUPPLY_IMP_ID, floor);
      // A native or push zone takes only an answer we render ourselves: its assets, icon and landing checked.
      got.bids = got.bids.filter((b) => {
        if (b.bid.adomain?.some((d) => isBlockedDomain(d, blocked))) {
          got.discards.push('bad_landing');
          return false;
        }
        // Our request offered only the versions the player takes; an answer in a newer one is refused, not wrapped.
        const asked = input.imp.vastVersion;
        if (asked && VAST_ORDER[partnerVastVersion(b.bid.adm ?? '', b.bid.protocol, asked)] > VAST_ORDER[asked]) {
          got.discards.push('vast_too_new');
          return false;
        }
        const r = readAnswer(format, b.bid.adm ?? '', blocked);
        if (r?.ok) read.set(b, r.answer);
        else if (r) got.discards.push(r.discard);
        return r?.ok !== false;
      });
      for (const d of got.discards) deps.stats.add(p.id, d);
      // A response discarded whole is a failure of the partner; a bid under the floor is not.
      if (got.bids.length === 0 && got.discards.some((d) => d !== 'under_floor')) deps.breaker.failure(p.id, clock);
      else deps.breaker.success(p.id);
      if (got.bids.length > 0) deps.stats.add(p.id, 'bids', got.bids.length);
      bids.push(...got.bids);
    }
  });

  const own = input.own.won ? input.own : undefined;
  let decision = decide(
    own && { ecpmMicroCents: own.candidate.ecpmMicroCents, priceMicroCents: own.priceMicroCents },
    bids,
    floor,
  );
  if (decision.winner === 'own' && own) {
    const raise = decision.priceMicroCents - own.priceMicroCents;
    if (raise <= 0) return { kind: 'own', served: own };
    if (deps.budget.tryTake(own.candidate, raise))
      return { kind: 'own', served: repriced(deps.secret, own, decision.priceMicroCents) };
    // Its budget cannot pay what the partners' bids ask: the partners' auction decides.
    decision = decide(undefined, bids, floor);
  }
  if (decision.winner !== 'partner') return own ? { kind: 'own', served: own } : { kind: 'none' };
  if (own) deps.budget.giveBack(own.candidate, own.priceMicroCents);

  const win = decision.bid;
  const price = decision.priceMicroCents;
  const macros = (b: PartnerBid, loss: string): AuctionMacros => ({
    price: priceMacro(price),
    auctionId,
    impId: SUPPLY_IMP_ID,
    bidId: b.bid.id,
    seatId: b.seat,
    currency: 'USD',
    loss,
  });
  const m = macros(win, LOSS.won);
  const filled = substituteMacros(win.bid.adm ?? '', m);
  // Read again with its macros filled (their values are URL-encoded, so it still passes); else as it was taken.
  const again = readAnswer(format, filled, blocked);
  const answer = again?.ok ? again.answer : read.get(win);
  const link = answer?.native ?? answer?.push;
  const token = encodeDemandTicket(deps.secret, {
    auctionId,
    partnerId: win.partnerId,
    priceMicroCents: price,
    issuedAt: Math.floor(Date.now() / 1000),
    publisherId: input.imp.zone.publisher_id,
    siteId: input.imp.zone.site_id,
    zoneId: input.imp.zone.id,
    surface: input.surface,
    integration: input.integration ?? input.surface,
    format: input.imp.zone.format,
    country: input.imp.country ?? '',
    device: input.imp.device ?? '',
    os: input.imp.os ?? '',
    browser: input.browser ?? '',
    source: input.source ?? '',
  });
  const burl = win.bid.burl ? substituteMacros(win.bid.burl, m) : undefined;
  const nurl = win.bid.nurl ? substituteMacros(win.bid.nurl, m) : undefined;
  await deps.wins.save(auctionId, {
    partnerId: win.partnerId,
    burl,
    adm: input.surface === 'vast' ? filled : undefined,
    // Our click redirect (/c/d.<ticket>/dsp, routes/demand.ts) sends the viewer there and calls the click trackers.
    landing: link?.landing,
    clicktrackers: link?.clicktrackers.length ? link.clicktrackers : undefined,
  });
  deps.stats.add(win.partnerId, 'wins');
  // Served now (a page or a player): the win notice goes out (once, see notices.ts); losers hear why they lost.
  if (nurl && input.surface !== 'push') sendWinNotice(deps, auctionId, win.partnerId, nurl);
  for (const l of decision.losers) {
    if (l.bid.lurl)
      void deps.notifier.send(
        `${auctionId}:${l.partnerId}:${l.bid.id}:lurl`,
        substituteMacros(l.bid.lurl, macros(l, LOSS.lostToHigherBid)),
      );
  }
  return {
    kind: 'partner',
    partnerId: win.partnerId,
    auctionId,
    token,
    adm: filled,
    w: win.bid.w,
    h: win.bid.h,
    protocol: win.bid.protocol,
    priceMicroCents: price,
    native: answer?.native,
    push: answer?.push,
    nurl,
    burl,
  };
}

/** The winner's win notice, once per auction whoever asks (notices.ts). */
export function sendWinNotice(
  deps: Pick<SupplyDeps, 'notifier'>,
  auctionId: string,
  partnerId: number,
  nurl: string,
): void {
  void deps.notifier.send(`${auctionId}:${partnerId}:nurl`, nurl);
}

/** Our ad at a higher price than our own auction set: the same bid, its ticket signed again. */
function repriced(secret: string, s: Served, priceMicroCents: number): Served {
  const t = decodeTicket(secret, s.ticket);
  if (!t) return s;
  return { ...s, priceMicroCents, ticket: encodeTicket(secret, { ...t, priceMicroCents }) };
}
