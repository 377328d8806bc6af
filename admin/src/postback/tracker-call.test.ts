import { describe, expect, it } from 'vitest';
import { attemptForClient } from './tracker-call.ts';

describe('an attempt as an advertiser sees it', () => {
  const at = { at: '2026-11-01T00:00:00.000Z', attempt: 1, status: null };
  it('shows the reasons recorded before the merge as the one reason that names no internal host', () => {
    for (const reason of ['refused_address', 'dns']) {
      expect(attemptForClient({ ...at, reason, error: 'the host is not on the public internet' })).toEqual({
        ...at,
        reason: 'host_not_public',
        error: 'the host name does not resolve to a public internet address',
      });
    }
  });
  it('keeps the other reasons, success and attempts from before reasons were kept', () => {
    expect(attemptForClient({ ...at, reason: 'timeout', error: 'x' })).toEqual({
      ...at,
      reason: 'timeout',
      error: 'no answer within the time limit',
    });
    expect(attemptForClient({ ...at, status: 200, reason: null, error: null })).toEqual({
      ...at,
      status: 200,
      reason: null,
      error: null,
    });
    expect(attemptForClient({ ...at, error: 'old words' })).toEqual({ ...at, reason: null, error: 'old words' });
  });
});
