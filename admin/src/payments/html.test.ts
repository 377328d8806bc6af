import { describe, expect, it } from 'vitest';
import { esc, receiptHtml, usd } from './html.ts';

describe('pages the admin renders', () => {
  it('escapes every value', () => {
    expect(esc(`<img src=x onerror="alert('1')">&`)).toBe(
      '&lt;img src=x onerror=&quot;alert(&#39;1&#39;)&quot;&gt;&amp;',
    );
    const html = receiptHtml({
      number: 'R1-000001',
      depositId: 1,
      issuedAt: '2026-11-23T10:00:00.000Z',
      advertiserEmail: '"><script>alert(1)</script>@example.com',
      advertiserId: 1,
      amountCents: 2550,
      refundedCents: 0,
      provider: 'stripe',
      paymentRef: 'pi_<b>',
      issuer: 'ads.example',
    });
    expect(html).not.toContain('<script>');
    expect(html).toContain('&quot;&gt;&lt;script&gt;');
    expect(html).toContain('Stripe (pi_&lt;b&gt;)');
    expect(html).toContain('2026-11-23 10:00:00');
  });

  it('writes dollars from cents, negative ones too', () => {
    expect([usd(0), usd(5), usd(2550), usd(-3000)]).toEqual(['$0.00', '$0.05', '$25.50', '-$30.00']);
  });
});
