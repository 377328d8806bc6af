import { describe, expect, it } from 'vitest';
import { REST_ROUTES } from '../src/http/rest-routes.ts';
import { appRouter } from '../src/trpc/router.ts';
import { useTestApp } from '@adnet/test-support/admin';

const fx = useTestApp();

describe('REST door and its documents', () => {
  it('maps every REST route to a real procedure of the matching kind', () => {
    const procedures = (appRouter._def as unknown as { procedures: Record<string, { _def: { type: string } }> })
      .procedures;
    for (const route of REST_ROUTES) {
      const proc = procedures[route.procedure];
      expect(proc, route.procedure).toBeDefined();
      expect([route.path, proc?._def.type]).toEqual([route.path, route.method === 'GET' ? 'query' : 'mutation']);
    }
  });

  it('publishes OpenAPI 3 with every REST path, its parameters and its schemas', async () => {
    const doc = (await (await fetch(`${fx.app.base}/openapi.json`)).json()) as {
      openapi: string;
      paths: Record<
        string,
        Record<
          string,
          {
            parameters: { name: string }[];
            requestBody?: { content: Record<string, { schema: { properties?: Record<string, unknown> } }> };
          }
        >
      >;
    };
    expect(doc.openapi).toMatch(/^3\./);
    for (const route of REST_ROUTES)
      expect(doc.paths[route.path]?.[route.method.toLowerCase()], `${route.method} ${route.path}`).toBeDefined();
    const create = doc.paths['/api/adv/campaigns']?.post;
    expect(Object.keys(create?.requestBody?.content['application/json']?.schema.properties ?? {})).toEqual(
      expect.arrayContaining([
        'name',
        'vertical',
        'format',
        'bid_type',
        'bid_usd',
        'daily_budget_usd',
        'geo_include',
        'languages',
      ]),
    );
    expect(doc.paths['/api/adv/campaigns/{id}']?.patch?.parameters.map((p) => p.name)).toEqual(['id']);
    // An interstitial zone's settings and a campaign's opt-in are in the documents the schemas make.
    expect(
      Object.keys(doc.paths['/api/pub/zones']?.post?.requestBody?.content['application/json']?.schema.properties ?? {}),
    ).toEqual(
      expect.arrayContaining(['interstitial_delay_sec', 'interstitial_close_after_sec', 'interstitial_freq_cap_hours']),
    );
    expect(Object.keys(create?.requestBody?.content['application/json']?.schema.properties ?? {})).toContain(
      'interstitial',
    );
    // The statistics summaries name every dimension each side may group by.
    const summary = (path: string) => (doc.paths[path]?.get as unknown as { summary: string }).summary;
    expect(summary('/api/adv/stats')).toBe(
      'Statistics by any of day, hour, campaign, creative, geo, device, os, browser, site, zone, source, integration, format',
    );
    expect(summary('/api/pub/stats')).toBe(
      'Impressions, clicks and earnings by any of day, hour, geo, device, os, browser, site, zone, demand, integration, format',
    );
    expect(
      doc.paths['/api/adv/campaigns/{campaign_id}/creatives']?.post?.requestBody?.content['multipart/form-data'],
    ).toBeDefined();
    // Billing: a month is a text parameter; the receipt is a page and statements come as CSV too.
    const statement = doc.paths['/api/adv/statements/{month}']?.get as unknown as {
      parameters: { name: string; schema: { type: string } }[];
      responses: Record<string, { content: Record<string, unknown> }>;
    };
    expect(statement.parameters.find((p) => p.name === 'month')?.schema.type).toBe('string');
    expect(Object.keys(statement.responses['200']?.content ?? {})).toEqual(['application/json', 'text/csv']);
    const receipt = doc.paths['/api/adv/deposits/{id}/receipt']?.get as unknown as {
      responses: Record<string, { content: Record<string, unknown> }>;
    };
    expect(Object.keys(receipt.responses['200']?.content ?? {})).toEqual(['text/html']);
    expect(
      Object.keys(
        doc.paths['/api/adv/deposits']?.post?.requestBody?.content['application/json']?.schema.properties ?? {},
      ),
    ).toEqual(['amount_usd']);
    expect(doc.paths['/api/pub/payout-settings']?.put).toBeDefined();
    // The trackers' door: form fields in the body (POST) or the query (GET), the secret and signature also as headers.
    const postback = doc.paths['/postback/in'];
    expect(
      Object.keys(
        postback?.post?.requestBody?.content['application/x-www-form-urlencoded']?.schema.properties ?? {},
      ).sort(),
    ).toEqual(['click_id', 'payout', 'secret', 'sig', 'status', 'txid']);
    expect(postback?.post?.parameters.map((p) => p.name)).toEqual(['x-service-secret', 'x-service-signature']);
    expect(postback?.get?.parameters.map((p) => p.name)).toEqual([
      'secret',
      'sig',
      'click_id',
      'payout',
      'status',
      'txid',
      'x-service-secret',
      'x-service-signature',
    ]);
  });

  it('serves the API reference and health checks, and echoes request ids', async () => {
    const docs = await fetch(`${fx.app.base}/docs/api`);
    expect(docs.headers.get('content-type')).toContain('text/markdown');
    expect(await docs.text()).toContain('/api/adv/campaigns');
    expect(await (await fetch(`${fx.app.base}/docs/vast`)).text()).toContain('VAST 4.0');
    expect((await fetch(`${fx.app.base}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${fx.app.base}/readyz`)).json()).toEqual({
      ok: true,
      redis: 'ready',
      events: { length: 0, lag: 0, pending: 0 },
      checks: [
        { name: 'redis', state: 'ok', detail: expect.stringMatching(/^PING answered \d+\.\d s ago$/) },
        {
          name: 'ingester',
          state: 'ok',
          detail: 'statistics 0.0 s behind the event stream; 0 entries undelivered, 0 pending',
        },
      ],
    });
    const given = await fetch(`${fx.app.base}/healthz`, { headers: { 'x-request-id': 'abc-123' } });
    expect(given.headers.get('x-request-id')).toBe('abc-123');
    const made = await fetch(`${fx.app.base}/healthz`, { headers: { 'x-request-id': 'bad id with spaces' } });
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect((await fetch(`${fx.app.base}/media/../../etc/passwd`)).status).toBe(404);
    expect((await fetch(`${fx.app.base}/media/${'a'.repeat(64)}.png`)).status).toBe(404);
  });
});
