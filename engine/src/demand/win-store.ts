/** What a partner's won impression needs later: its billing notice and, for video, its VAST markup. */
export interface DemandWin {
  partnerId: number;
  burl?: string | undefined;
  adm?: string | undefined;
}

/** Won impressions by auction id, for an hour (the impression tracker's age limit). */
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
      await redis.set(`dmd:win:${id}`, JSON.stringify(win), 'EX', 3_600);
    },
    load: async (id) => {
      const raw = await redis.get(`dmd:win:${id}`);
      return raw ? (JSON.parse(raw) as DemandWin) : undefined;
    },
  };
}
