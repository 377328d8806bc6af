import { describe, expect, it } from 'vitest';
import { demoPage } from './demo-page.ts';

const urls = { baseUrl: 'http://127.0.0.1:8080', adBaseUrl: 'http://ads.127.0.0.1.test:8080' };

describe('the demo pages', () => {
  it("show a zone's widget from the ad origin, under a policy that lets the widget and nothing else load", () => {
    const page = demoPage('/demo/Ab12cd', new URLSearchParams(), urls);
    expect(page?.status).toBe(200);
    expect(page?.body).toContain('<script src="http://ads.127.0.0.1.test:8080/w/Ab12cd.js"></script>');
    const csp = page?.headers['content-security-policy'] ?? '';
    expect(csp).toContain('script-src http://ads.127.0.0.1.test:8080;');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(page?.headers['cache-control']).toBe('no-store');
  });

  it('put nothing from the request into the markup but a subid or a click id of the right shape', () => {
    for (const path of ['/demo/<script>', '/demo/a"b', '/demo/' + 'a'.repeat(33), '/demo/', '/demo/a/b']) {
      expect(demoPage(path, new URLSearchParams(), urls)).toBeUndefined();
    }
    const id = '0b8e6a52-6c1b-4c57-9d0e-3f1f6f0a9b21';
    expect(demoPage('/demo/landing', new URLSearchParams({ click_id: id }), urls)?.body).toContain(
      `<code id="click-id">${id}</code>`,
    );
    const hostile = demoPage('/demo/landing', new URLSearchParams({ click_id: '<img src=x onerror=alert(1)>' }), urls);
    expect(hostile?.status).toBe(200);
    expect(hostile?.body).not.toContain('<img');
    expect(hostile?.headers['content-security-policy']).toMatch(/^default-src 'none'; style-src 'unsafe-inline'/);
  });
});
