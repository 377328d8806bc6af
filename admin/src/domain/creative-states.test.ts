import { describe, expect, it } from 'vitest';
import { creativeMove } from './creative-states.ts';

describe('creativeMove', () => {
  it('pauses and resumes an approved creative, idempotently', () => {
    expect(creativeMove('approved', 'pause')).toEqual({ ok: true, next: 'paused', changed: true });
    expect(creativeMove('paused', 'pause')).toEqual({ ok: true, next: 'paused', changed: false });
    expect(creativeMove('paused', 'resume')).toEqual({ ok: true, next: 'approved', changed: true });
    expect(creativeMove('approved', 'resume')).toEqual({ ok: true, next: 'approved', changed: false });
  });

  it('refuses to pause or resume what moderation has not approved', () => {
    for (const status of ['pending_moderation', 'rejected'] as const) {
      expect(creativeMove(status, 'pause').ok).toBe(false);
      expect(creativeMove(status, 'resume').ok).toBe(false);
    }
  });

  it('archives from anywhere, for good', () => {
    for (const status of ['pending_moderation', 'approved', 'rejected', 'paused'] as const)
      expect(creativeMove(status, 'archive')).toMatchObject({ next: 'archived' });
    expect(creativeMove('archived', 'archive')).toEqual({ ok: true, next: 'archived', changed: false });
    expect(creativeMove('archived', 'resume').ok).toBe(false);
  });
});
