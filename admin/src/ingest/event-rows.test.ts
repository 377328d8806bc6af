import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EngineEvent } from '@adnet/schemas/events';
import { Session } from 'chdb';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { EVENT_COLUMNS, EVENT_ROW_BINARY_STRUCTURE, eventsRowBinary, toRow, toRowValues } from './event-rows.ts';
import type { EventRow } from './event-rows.ts';

const click = (country: string | undefined) =>
  ({
    id: 'e1',
    type: 'click',
    ts: 0,
    engine: 'x',
    click_id: 'c',
    invalid: false,
    charge_nano: 0,
    country,
  }) as unknown as EngineEvent;

describe('toRow', () => {
  it('keeps an ISO country and drops any other text, so it never reaches the statistics as written', () => {
    expect(toRow(click('de')).country).toBe('de');
    for (const bad of ['=cmd|calc!A0', 'USA', 'zz', '<script>', '']) expect(toRow(click(bad)).country, bad).toBe('');
    expect(toRow(click(undefined)).country).toBe('');
  });

  it("keeps a known integration, drops any other text, and reads an event of a partner's request as OpenRTB's", () => {
    const of = (fields: Record<string, unknown>) => toRow({ ...(click('us') as object), ...fields } as EngineEvent);
    for (const named of ['widget', 'vast', 'openrtb', 'prebid', 'push'])
      expect(of({ integration: named }).integration).toBe(named);
    for (const bad of ['amp', '=cmd|calc!A0', 'Widget', '']) expect(of({ integration: bad }).integration, bad).toBe('');
    // The OpenRTB route's bid and no-bid events leave it out; so did every event before it existed.
    expect(of({ partner_id: 3 }).integration).toBe('openrtb');
    expect(of({ partner_id: 3, integration: 'prebid' }).integration).toBe('prebid');
    expect(of({}).integration).toBe('');
  });

  it('keeps a known format as served under ad_format, and drops any other text', () => {
    const of = (fields: Record<string, unknown>) => toRow({ ...(click('us') as object), ...fields } as EngineEvent);
    for (const named of ['banner', 'interstitial', 'direct_link', 'popunder'])
      expect(of({ format: named }).ad_format).toBe(named);
    for (const bad of ['Banner', '=cmd|calc!A0', '', 7]) expect(of({ format: bad }).ad_format, String(bad)).toBe('');
    expect(of({}).ad_format).toBe('');
  });

  it('sends every column of a row, by name or by position alike', () => {
    // A field added to EventRow and not to EVENT_COLUMNS would never reach a JSONCompactEachRow insert.
    expectTypeOf<Exclude<keyof EventRow, (typeof EVENT_COLUMNS)[number]>>().toEqualTypeOf<never>();
    const e = {
      ...click('fr'),
      site_domain: 'a\tb"c\n',
      source: 'x'.repeat(100),
      ts: Date.parse('2026-11-20T10:30:00.123Z'),
    } as EngineEvent;
    const values = toRowValues(e);
    expect(values).toHaveLength(EVENT_COLUMNS.length);
    expect(Object.values(toRow(e))).toEqual(values);
    expect(toRow(e)).toMatchObject({
      ts: '2026-11-20 10:30:00.123',
      site_domain: 'a\tb"c\n',
      source: 'x'.repeat(64),
      country: 'fr',
    });
  });
});

describe('eventsRowBinary', () => {
  it('reads back in ClickHouse as the same row a JSONCompactEachRow insert sends', () => {
    const events = [
      click('de'),
      // Long, tabbed, non-ASCII and quoted text (a length over 127 takes a 2-byte varint), money over 32 bits, a negative one.
      {
        ...click('fr'),
        id: 'é'.repeat(90),
        site_domain: 'a\tb"c\n\'ü',
        source: 'x'.repeat(100),
        charge_nano: 9_007_199_254_740_991,
        ts: Date.parse('2026-11-20T10:30:00.123Z'),
      },
      {
        id: 'w',
        type: 'win',
        ts: 1,
        engine: 'e',
        bid_id: 'b',
        partner_id: 4_294_967_295,
        price_micro_cents: -5,
        charge_nano: -1_234_567_890_123,
      },
    ] as EngineEvent[];
    const dir = mkdtempSync(join(tmpdir(), 'rowbinary-'));
    const session = new Session(join(dir, 'ch'));
    try {
      const path = join(dir, 'rows.bin');
      writeFileSync(path, eventsRowBinary(events));
      const out = session.query(
        `SELECT * FROM file('${path}', 'RowBinary', '${EVENT_ROW_BINARY_STRUCTURE.replaceAll("'", "\\'")}')
         SETTINGS output_format_json_quote_64bit_integers = 0`,
        'JSONCompactEachRow',
      );
      expect(
        out
          .trim()
          .split('\n')
          .map((line) => JSON.parse(line) as unknown),
      ).toEqual(events.map(toRowValues));
    } finally {
      session.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
