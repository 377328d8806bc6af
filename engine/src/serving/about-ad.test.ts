import { describe, expect, it } from 'vitest';
import { aboutAdNotFoundPage, aboutAdPage, escapeHtml } from './about-ad.ts';
import type { AboutAdFacts } from './about-ad.ts';

const facts = (over: Partial<AboutAdFacts> = {}): AboutAdFacts => ({
  network: 'ads.example.net',
  contact: 'abuse@example.net',
  site: 'news.example.org',
  buyer: { kind: 'advertiser', advertiserId: 42, landingDomain: 'shop.example.com' },
  why: {
    zone: 'a native ad',
    country: 'de',
    device: 'mobile',
    targetsCountry: true,
    targetsDevice: false,
    audience: false,
  },
  preview: false,
  ...over,
});

describe('aboutAdPage', () => {
  it('names the network, the advertiser account and landing domain, the site and the targeting matched', () => {
    const html = aboutAdPage(facts());
    expect(html).toContain('ads.example.net');
    expect(html).toContain('Advertiser account 42, advertising shop.example.com.');
    expect(html).toContain('news.example.org');
    expect(html).toContain('a native ad');
    expect(html).toContain('Germany');
    expect(html).toContain('mobile');
    expect(html).toContain('shows only to visitors in the countries it chose');
    expect(html).toContain('No personal profile of you was used.');
    expect(html).toContain('href="mailto:abuse@example.net"');
    expect(html).not.toMatch(/<script|\son\w+=/i);
  });

  it('says when the campaign shows to an audience, and names an advertiser only where one is known', () => {
    const html = aboutAdPage(
      facts({
        buyer: { kind: 'advertiser', advertiserId: 7, landingDomain: 'x.example', name: 'Acme' },
        why: { zone: '', country: '', device: '', targetsCountry: false, targetsDevice: false, audience: true },
      }),
    );
    expect(html).toContain('Acme (advertiser account 7)');
    expect(html).toContain('shows to an audience');
    expect(html).not.toContain('No personal profile');
    expect(html).toContain('does not limit the countries or devices');
  });

  it("names a demand partner that bought the ad, and the network's domain when no contact is configured", () => {
    const html = aboutAdPage(facts({ buyer: { kind: 'partner', name: 'Big DSP' }, contact: undefined }));
    expect(html).toContain('A demand partner, Big DSP, bought this ad space');
    expect(html).toContain('Write to the operators of ads.example.net.');
    expect(html).not.toContain('mailto:');
  });

  it('links a URL contact as it is, and says a preview counted nothing', () => {
    const html = aboutAdPage(facts({ contact: 'https://example.net/report', preview: true }));
    expect(html).toContain('<a href="https://example.net/report" rel="noopener noreferrer">');
    expect(html).toContain('This is a preview');
  });

  it('escapes every fact it writes', () => {
    const html = aboutAdPage(
      facts({
        site: '<img src=x onerror=alert(1)>',
        buyer: { kind: 'partner', name: '"><script>alert(1)</script>' },
        contact: 'https://e.example/"onmouseover="x',
      }),
    );
    expect(html).not.toContain('<script>');
    expect(html).not.toContain('<img');
    expect(html).not.toContain('"onmouseover');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(escapeHtml(`&<>"'`)).toBe('&amp;&lt;&gt;&quot;&#39;');
  });

  it('has a plain page for a link that names no ad', () => {
    expect(aboutAdNotFoundPage()).toContain('Ad not found');
  });
});
