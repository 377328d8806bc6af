/**
 * What a partner's won impression needs later: its billing notice, for video its VAST markup, for a
 * native ad its landing and click trackers (our click redirect reads them).
 */
export interface DemandWin {
  partnerId: number;
  burl?: string | undefined;
  adm?: string | undefined;
  link?: string | undefined;
  clicktrackers?: string[] | undefined;
}

/** A native ad's landing is kept a day: as long as a click on our own ads is billed (fraud/click-rules.ts `expired`). */
const LINK_TTL_SECONDS = 86_400;

/** Won impressions by auction id, for an hour (the impression tracker's age limit), a day for a native ad's landing. */
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
      await redis.set(`dmd:win:${id}`, JSON.stringify(win), 'EX', win.link ? LINK_TTL_SECONDS : 3_600);
    },
    load: async (id) => {
      const raw = await redis.get(`dmd:win:${id}`);
      return raw ? (JSON.parse(raw) as DemandWin) : undefined;
    },
  };
}
