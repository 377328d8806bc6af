import type { CandidateFilter } from '../filter.ts';

/** A campaign with languages serves only requests in one of them (a request without a language matches none). */
export const languageFilter: CandidateFilter = {
  name: 'language',
  scope: 'candidate',
  reject: (c, imp) => c.languages !== null && (imp.language === undefined || !c.languages.has(imp.language)),
};
