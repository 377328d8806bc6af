import type { Candidate } from './candidate.ts';

/** Best first: higher eCPM, then the lower creative id, so every engine picks the same winner. */
export const byRank = (a: Candidate, b: Candidate): number => b.ecpmMicroCents - a.ecpmMicroCents || a.creativeId - b.creativeId;

/** Orders a candidate list best first, as the index keeps every list. */
export const rankCandidates = (list: Candidate[]): Candidate[] => list.sort(byRank);
