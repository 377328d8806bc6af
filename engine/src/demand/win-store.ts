/**
 * What a partner's won impression needs later: its billing notice, for video its VAST markup, and for
 * an ad clicked through our redirect (a native card, a push notification, an in-page push) the
 * partner's landing and click trackers (native.ts PartnerLink, read by routes/demand.ts demandClick).
 */
export interface DemandWin {
  partnerId: number;
  burl?: string | undefined;
  adm?: string | undefined;
  landing?: string | undefined;
  clicktrackers?: string[] | undefined;
}

/** A win without a landing: the impression tracker's age limit (routes/demand.ts). */
const WIN_TTL_SECONDS = 3_600;
/**
 * A win with a landing: the longest a surface's click may come. A notification may be opened days
 * after it arrived, so a week, as long as a click is counted once (store/counters.ts COUNT_TTL_S);
 * a click older than a day is still redirected but invalid (`expired`, fraud/ click rules).
 */
export const LANDING_TTL_SECONDS = 7 * 86_400;

/** Won impressions by auction id. */
export interface WinStore {
  save(auctionId: string, win: DemandWin): Promise<void>;
  load(auctionId: string): Promise<DemandWin | undefined>;
}

export function redisWinStore(redis: {
  set(key: string, value: string, ex: 'EX', seconds: number): Promise<unknown>;
  get(key: string): Promise<string | null>;
}): WinStore {
  return {
    save: async (id, win) => {
      await redis.set(`dmd:win:${id}`, JSON.stringify(win), 'EX', win.landing ? LANDING_TTL_SECONDS : WIN_TTL_SECONDS);
    },
    load: async (id) => {
      const raw = await redis.get(`dmd:win:${id}`);
      return raw ? (JSON.parse(raw) as DemandWin) : undefined;
    },
  };
}
