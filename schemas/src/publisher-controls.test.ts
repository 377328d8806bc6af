import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  FALLBACK_HTML_MAX_BYTES,
  controlsInputShape,
  controlsOut,
  effectiveControls,
  splitControls,
} from './publisher-controls.ts';

const input = z.object(controlsInputShape);

describe('publisher controls', () => {
  it("a zone's own setting wins, an unset one is its site's, and one neither sets is the network's default", () => {
    const site = {
      floor_cpm_micro_cents: 50_000,
      blocked_verticals: ['gambling' as const],
      fallback: { type: 'url' as const, value: 'https://h.example/' },
    };
    expect(effectiveControls({}, undefined)).toEqual({
      floorMicroCents: 0,
      blockedVerticals: [],
      blockedDomains: [],
      fallback: null,
    });
    expect(effectiveControls({ floor_cpm_micro_cents: null, blocked_advertiser_domains: ['x.example'] }, site)).toEqual(
      {
        floorMicroCents: 50_000,
        blockedVerticals: ['gambling'],
        blockedDomains: ['x.example'],
        fallback: site.fallback,
      },
    );
    // An empty list, a zero floor and `none` are settings of their own: they override the site's.
    expect(
      effectiveControls(
        { floor_cpm_micro_cents: 0, blocked_verticals: [], fallback: { type: 'none', value: null } },
        site,
      ),
    ).toEqual({
      floorMicroCents: 0,
      blockedVerticals: [],
      blockedDomains: [],
      fallback: null,
    });
  });

  it('stores the floor in micro-cents, only what an input names, and answers it in USD', () => {
    const parsed = input.parse({
      floor_cpm_usd: 0.29,
      fallback: { type: 'html', value: 'ü'.repeat(FALLBACK_HTML_MAX_BYTES / 2) },
    });
    const { controls, rest } = splitControls({ ...parsed, name: 'n' });
    expect(controls).toEqual({ floor_cpm_micro_cents: 29_000, fallback: parsed.fallback });
    expect(rest).toEqual({ name: 'n' });
    expect(controlsOut(controls)).toMatchObject({
      floor_cpm_usd: 0.29,
      blocked_verticals: null,
      blocked_advertiser_domains: null,
    });
    expect(splitControls(input.parse({ floor_cpm_usd: null })).controls).toEqual({ floor_cpm_micro_cents: null });
  });

  it('measures the HTML limit in UTF-8 bytes', () => {
    const over = input.safeParse({ fallback: { type: 'html', value: `${'ü'.repeat(FALLBACK_HTML_MAX_BYTES / 2)}x` } });
    expect(over.error?.issues.map((i) => [i.path.join('.'), i.message])).toEqual([
      ['fallback.value', `must be at most ${FALLBACK_HTML_MAX_BYTES} bytes`],
    ]);
  });

  it('blocks advertiser domains as the engine reads landing hosts: normalised, without www., once each', () => {
    expect(
      input.parse({ blocked_advertiser_domains: ['WWW.Shop.example', 'shop.example', 'https://a.b.example/x'] })
        .blocked_advertiser_domains,
    ).toEqual(['shop.example', 'a.b.example']);
  });
});
