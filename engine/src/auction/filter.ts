import type { NoBidReason } from '@adnet/schemas/events';
import type { Candidate } from '../index/candidate.ts';
import type { ImpContext, RequestContext } from './request-types.ts';

/**
 * An auction rule, registered in filters/index.ts. Its name is the no-bid
 * reason it reports and the label of its counter. The scope says how often it
 * runs: once per request, once per impression, or per candidate inside the
 * ranked walk (keep those cheap: they run in the hot loop). Geo and format are
 * not filters: the index lookup already answers them.
 */
export type Filter =
  | { readonly name: NoBidReason; readonly scope: 'request'; reject(req: RequestContext): boolean }
  | { readonly name: NoBidReason; readonly scope: 'imp'; reject(imp: ImpContext, req: RequestContext): boolean }
  | CandidateFilter;

export interface CandidateFilter {
  readonly name: NoBidReason;
  readonly scope: 'candidate';
  reject(c: Candidate, imp: ImpContext): boolean;
}

export type RequestFilter = Extract<Filter, { scope: 'request' }>;
export type ImpFilter = Extract<Filter, { scope: 'imp' }>;
