import type { Candidate } from './candidate.ts';

/**
 * Best first: higher rank (the eCPM, or its bound under bid adjustments: see Candidate.rankMicroCents), then the lower campaign id, so every engine ranks campaigns alike; a
 * campaign's creatives (equal eCPM) stay next to each other, by id, for its rotation to choose from.
 */
export const byRank = (a: Candidate, b: Candidate): number =>
  b.rankMicroCents - a.rankMicroCents || a.campaignId - b.campaignId || a.creativeId - b.creativeId;

/** Orders a candidate list best first, as the index keeps every list. */
export const rankCandidates = (list: Candidate[]): Candidate[] => list.sort(byRank);

/** The order of the lists exchange traffic walks (Candidate.exchangeRankMicroCents), same ties. */
export const byExchangeRank = (a: Candidate, b: Candidate): number =>
  b.exchangeRankMicroCents - a.exchangeRankMicroCents || a.campaignId - b.campaignId || a.creativeId - b.creativeId;
