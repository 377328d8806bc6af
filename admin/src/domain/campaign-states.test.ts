import { describe, expect, it } from 'vitest';
import { transition } from './campaign-states.ts';

const ready = { usableCreatives: 1, dailyBudgetCents: 100 };

describe('campaign state machine', () => {
  it('activates a draft with a creative, approved or waiting for moderation', () => {
    expect(transition('draft', 'activate', ready)).toEqual({ ok: true, next: 'active', changed: true });
  });
  it('refuses activation without any creative or a budget', () => {
    expect(transition('draft', 'activate', { ...ready, usableCreatives: 0 })).toMatchObject({
      ok: false,
      reason: /needs a creative/,
    });
    expect(transition('paused', 'activate', { ...ready, dailyBudgetCents: 0 })).toMatchObject({
      ok: false,
      reason: /budget/,
    });
  });
  it('pauses and resumes', () => {
    expect(transition('active', 'pause', ready)).toEqual({ ok: true, next: 'paused', changed: true });
    expect(transition('paused', 'activate', ready)).toEqual({ ok: true, next: 'active', changed: true });
  });
  it('treats a repeated move as a no-op success', () => {
    expect(transition('active', 'activate', { usableCreatives: 0, dailyBudgetCents: 0 })).toEqual({
      ok: true,
      next: 'active',
      changed: false,
    });
    expect(transition('paused', 'pause', ready)).toEqual({ ok: true, next: 'paused', changed: false });
  });
  it('refuses to pause a draft and to leave archived', () => {
    expect(transition('draft', 'pause', ready).ok).toBe(false);
    expect(transition('archived', 'activate', ready).ok).toBe(false);
    expect(transition('archived', 'pause', ready).ok).toBe(false);
    expect(transition('archived', 'archive', ready)).toEqual({ ok: true, next: 'archived', changed: false });
    expect(transition('draft', 'archive', ready)).toEqual({ ok: true, next: 'archived', changed: true });
  });
});
