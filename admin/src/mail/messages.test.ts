import { describe, expect, it } from 'vitest';
import { renderNotice } from './messages.ts';

const ctx = { baseUrl: 'https://ads.example', token: 'tok_123', ttlText: '1 hour' };

describe('notice texts', () => {
  it('puts the link token after # so it never reaches a server log', () => {
    const m = renderNotice({ kind: 'password_reset', email: 'a@example.com' }, ctx);
    expect(m.text).toContain('https://ads.example/cabinet/reset-password#token=tok_123');
    expect(m.text).toContain('valid 1 hour, once');
    expect(renderNotice({ kind: 'verify_email', user_id: 1 }, ctx).text).toContain(
      '/cabinet/verify-email#token=tok_123',
    );
  });

  it('keeps user text on one bounded line', () => {
    const m = renderNotice(
      {
        kind: 'creative_moderated',
        user_id: 1,
        creative_id: 2,
        campaign_id: 3,
        title: 'T\r\nBcc: x@evil',
        status: 'rejected',
        reason: 'bad\nBcc: y'.repeat(100),
      },
      ctx,
    );
    expect(m.subject).toBe('Creative rejected: T Bcc: x@evil');
    expect(m.text.split('\n').find((l) => l.startsWith('Reason:'))?.length).toBeLessThanOrEqual(308);
    expect(m.text).not.toMatch(/\nBcc:/);
    expect(m.text).not.toContain('review takes');
    expect(
      renderNotice(
        {
          kind: 'creative_moderated',
          user_id: 1,
          creative_id: 2,
          campaign_id: 3,
          title: 'T',
          status: 'rejected',
          reason: 'x',
        },
        { ...ctx, moderationWait: 'about 15 minutes' },
      ).text,
    ).toContain('send it for review again (review takes about 15 minutes): https://ads.example/cabinet/campaigns/3');
  });

  it('sends a low balance to the deposit form', () => {
    expect(
      renderNotice({ kind: 'low_balance', user_id: 1, balance_cents: 995, threshold_cents: 1000 }, ctx).text,
    ).toContain('Add funds at https://ads.example/cabinet/billing#add-funds');
  });

  it('writes money in dollars from cents', () => {
    expect(
      renderNotice({ kind: 'low_balance', user_id: 1, balance_cents: 995, threshold_cents: 1000 }, ctx).subject,
    ).toBe('Low balance: $9.95');
    expect(
      renderNotice({ kind: 'payout_paid', user_id: 1, payout_id: 4, amount_cents: 12_345, reference: 'PP-1' }, ctx)
        .text,
    ).toContain('$123.45');
  });
});
