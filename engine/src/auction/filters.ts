import { iabBlocks } from '@adnet/schemas/iab';
import type { Candidate } from '../index/candidate.ts';

/** What the filters know about one impression. */
export interface ImpContext {
  language: string | undefined;
  device: string | undefined;
  bcat: readonly string[] | undefined;
  badv: readonly string[] | undefined;
  floorMicroCents: number;
}

/**
 * An auction filter: its name is also the no-bid reason it reports. Geo and
 * format are not here: the index lookup already answers them.
 */
export interface Filter {
  readonly name: string;
  reject(c: Candidate, ctx: ImpContext): boolean;
}

export const languageFilter: Filter = {
  name: 'language',
  reject: (c, ctx) => c.languages !== null && (ctx.language === undefined || !c.languages.has(ctx.language)),
};

export const deviceFilter: Filter = {
  name: 'device_type',
  reject: (c, ctx) => c.devices !== null && (ctx.device === undefined || !c.devices.has(ctx.device)),
};

export const blockedCategoryFilter: Filter = {
  name: 'blocked_category',
  reject: (c, ctx) => ctx.bcat !== undefined && ctx.bcat.some((b) => c.iabCats.some((cat) => iabBlocks(b, cat))),
};

export const blockedAdvertiserFilter: Filter = {
  name: 'blocked_advertiser',
  reject: (c, ctx) => ctx.badv !== undefined && c.adomain !== '' && ctx.badv.some((d) => d === c.adomain || c.adomain.endsWith(`.${d}`)),
};

/**
 * In order of cost, cheapest first. The floor is not a filter: candidates are
 * ranked, so the auction stops at the first one below it (reason `below_floor`).
 */
export const FILTERS: readonly Filter[] = [languageFilter, deviceFilter, blockedAdvertiserFilter, blockedCategoryFilter];
