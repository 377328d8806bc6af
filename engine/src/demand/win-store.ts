/** What a partner's won impression needs later: its billing notice and, for video, its VAST markup. */
export interface DemandWin {
  partnerId: number;
  burl?: string | undefined;
  adm?: string | undefined;
  /** A push notification's landing, which our click link redirects to (checked: native.ts readPushAnswer). */
  landing?: string | undefined;
}

/** Won impressions by auction id, for an hour (the impression tracker's age limit) unless told longer. */
export interface WinStore {
  save(auctionId: string, win: DemandWin, ttlSeconds?: number): Promise<void>;
  load(auctionId: string): Promise<DemandWin | undefined>;
}

export function redisWinStore(redis: {
  set(key: string, value: string, ex: 'EX', seconds: number): Promise<unknown>;
  get(key: string): Promise<string | null>;
}): WinStore {
  return {
    save: async (id, win, ttlSeconds = 3_600) => {
      await redis.set(`dmd:win:${id}`, JSON.stringify(win), 'EX', ttlSeconds);
    },
    load: async (id) => {
      const raw = await redis.get(`dmd:win:${id}`);
      return raw ? (JSON.parse(raw) as DemandWin) : undefined;
    },
  };
}
