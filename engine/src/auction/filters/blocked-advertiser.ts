import type { CandidateFilter } from '../filter.ts';

/** Whether `domain` is `blocked` or one of its subdomains, without building `.${blocked}` per check. */
function underDomain(domain: string, blocked: string): boolean {
  if (domain === blocked) return true;
  const dot = domain.length - blocked.length - 1;
  return dot >= 0 && domain.charCodeAt(dot) === 46 && domain.endsWith(blocked);
}

function blocks(badv: readonly string[], domain: string): boolean {
  for (let i = 0; i < badv.length; i++) if (underDomain(domain, badv[i] as string)) return true;
  return false;
}

/** `badv` blocks a landing domain and its subdomains. */
export const blockedAdvertiserFilter: CandidateFilter = {
  name: 'blocked_advertiser',
  scope: 'candidate',
  reject: (c, imp) => imp.badv !== undefined && c.adomain !== '' && blocks(imp.badv, c.adomain),
};
