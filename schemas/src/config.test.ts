import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('applies documented defaults', () => {
    const c = loadConfig({});
    expect(c.server.baseUrl).toBe('http://127.0.0.1:8080');
    expect(c.admin.tokenTtlSeconds).toBe(30 * 86_400);
    expect(c.admin.apiRateLimitPerMin).toBe(60);
    expect(c.admin.registrationEnabled).toBe(true);
    expect(c.storage.redisUrl).toBeUndefined();
  });

  it('runs one engine per core unless told a number; an engine alone counts itself unless told the deployment', () => {
    const base = { TRACKING_SECRET: 'x'.repeat(40) };
    expect(loadConfig(base).processes).toMatchObject({
      engineProcesses: Math.min(64, availableParallelism()),
      engineCount: 1,
    });
    expect(loadConfig({ ...base, ENGINE_PROCESSES: 'auto', ENGINE_COUNT: '6' }).processes).toMatchObject({
      engineCount: 6,
    });
    expect(loadConfig({ ...base, ENGINE_PROCESSES: '3' }).processes).toMatchObject({
      engineProcesses: 3,
      engineCount: 3,
    });
    expect(() => loadConfig({ ...base, ENGINE_PROCESSES: 'many' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ENGINE_PROCESSES: '0' })).toThrow(ConfigError);
  });

  it('runs engines on the Node ENGINE_NODE names: auto by default, current, or an absolute path', () => {
    expect(loadConfig({}).processes.engineNode).toBe('auto');
    expect(loadConfig({ ENGINE_NODE: 'current' }).processes.engineNode).toBe('current');
    expect(loadConfig({ ENGINE_NODE: '/opt/node24/bin/node' }).processes.engineNode).toBe('/opt/node24/bin/node');
    expect(() => loadConfig({ ENGINE_NODE: 'node24' })).toThrow(/ENGINE_NODE/);
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ REDIS_URL: 'http://x' })).toThrow(/REDIS_URL/);
    expect(() => loadConfig({ REGISTRATION_ENABLED: 'maybe' })).toThrow(/REGISTRATION_ENABLED/);
    try {
      loadConfig({ PORT: '0', TOKEN_TTL_DAYS: '-1' });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect(Object.keys((e as ConfigError).problems).sort()).toEqual(['PORT', 'TOKEN_TTL_DAYS']);
    }
  });

  it('takes a ClickHouse cluster only with a ClickHouse server', () => {
    expect(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'ads' }).stats.cluster).toBe('ads');
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'ads' })).toThrow(/CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL/);
  });

  it('treats empty values as unset and trims the base URL', () => {
    const c = loadConfig({ REDIS_URL: '', PUBLIC_BASE_URL: 'https://ads.example.com/', PORT: '9000' });
    expect(c.storage.redisUrl).toBeUndefined();
    expect(c.server.baseUrl).toBe('https://ads.example.com');
    expect(c.server.port).toBe(9000);
  });

  it('reads the AI and video provider settings, unset providers meaning the offline ones', () => {
    const d = loadConfig({});
    expect(d.ai).toMatchObject({
      baseUrl: undefined,
      model: 'gpt-4o-mini',
      priceInputMicroCentsPer1k: 250,
      priceOutputMicroCentsPer1k: 1_000,
    });
    expect(d.video).toMatchObject({ baseUrl: undefined, costCents: 100, pollIntervalMs: 2_000, leaseMs: 60_000 });
    const c = loadConfig({
      AI_BASE_URL: 'https://api.example.com/v1/',
      AI_API_KEY: 'k',
      VIDEO_BASE_URL: 'http://video:9000/',
      VIDEO_COST_CENTS: '250',
    });
    expect(c.ai.baseUrl).toBe('https://api.example.com/v1');
    expect(c.video).toMatchObject({ baseUrl: 'http://video:9000', costCents: 250 });
    expect(() => loadConfig({ AI_BASE_URL: 'ftp://x' })).toThrow(/AI_BASE_URL/);
    expect(() => loadConfig({ VIDEO_COST_CENTS: '1.5' })).toThrow(/VIDEO_COST_CENTS/);
    expect(() => loadConfig({ AI_PRICE_OUTPUT_MICROCENTS_PER_1K: '-1' })).toThrow(/AI_PRICE_OUTPUT_MICROCENTS_PER_1K/);
  });

  // Billing: its own block, appended.
  it('reads the billing settings: the local payment provider unless Stripe is configured, with its webhook secret', () => {
    const d = loadConfig({});
    expect(d.billing).toEqual({
      stripe: undefined,
      depositMinCents: 1_000,
      depositMaxCents: 1_000_000,
      payoutHoldDays: 7,
      payoutCloseIntervalMs: 3_600_000,
      payoutAdjustDays: 14,
      publisherRevenueSharePercent: 70,
    });
    const c = loadConfig({
      STRIPE_SECRET_KEY: 'sk_test_1',
      STRIPE_WEBHOOK_SECRET: 'whsec_1',
      STRIPE_API_BASE_URL: 'http://127.0.0.1:9/',
      DEPOSIT_MIN_USD: '0.5',
      DEPOSIT_MAX_USD: '250.75',
    });
    expect(c.billing).toMatchObject({
      stripe: { secretKey: 'sk_test_1', webhookSecret: 'whsec_1', apiBaseUrl: 'http://127.0.0.1:9' },
      depositMinCents: 50,
      depositMaxCents: 25_075,
    });
    expect(() => loadConfig({ STRIPE_SECRET_KEY: 'sk_test_1' })).toThrow(
      /STRIPE_WEBHOOK_SECRET: needed with STRIPE_SECRET_KEY/,
    );
    expect(() => loadConfig({ DEPOSIT_MIN_USD: '100', DEPOSIT_MAX_USD: '50' })).toThrow(/DEPOSIT_MIN_USD/);
    expect(() => loadConfig({ PAYOUT_HOLD_DAYS: '1.5' })).toThrow(/PAYOUT_HOLD_DAYS/);
  });

  it('gives each slice only its own variables, and names every wrong one across slices', () => {
    const c = loadConfig({ DATA_DIR: '/srv/adnet' });
    expect(c.storage).toEqual({ dataDir: '/srv/adnet', redisUrl: undefined, journalDir: '/srv/adnet/journal' });
    expect(loadConfig({ DATA_DIR: '/srv/adnet', JOURNAL_DIR: '/j' }).storage.journalDir).toBe('/j');
    expect(c.server.adminBodyMaxBytes).toBe(1024 * 1024 + 256 * 1024);
    try {
      loadConfig({ PORT: '0', STRIPE_SECRET_KEY: 'sk_test_1', CLICKHOUSE_CLUSTER: 'ads' });
      expect.unreachable();
    } catch (e) {
      expect(Object.keys((e as ConfigError).problems).sort()).toEqual([
        'CLICKHOUSE_CLUSTER',
        'PORT',
        'STRIPE_WEBHOOK_SECRET',
      ]);
    }
  });
});
