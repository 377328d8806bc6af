import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from './config.ts';

describe('loadConfig', () => {
  it('applies documented defaults', () => {
    const c = loadConfig({});
    expect(c.baseUrl).toBe('http://127.0.0.1:8080');
    expect(c.tokenTtlSeconds).toBe(30 * 86_400);
    expect(c.apiRateLimitPerMin).toBe(60);
    expect(c.registrationEnabled).toBe(true);
    expect(c.redisUrl).toBeUndefined();
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
    expect(loadConfig({ CLICKHOUSE_URL: 'http://ch:8123', CLICKHOUSE_CLUSTER: 'ads' }).clickhouseCluster).toBe('ads');
    expect(() => loadConfig({ CLICKHOUSE_CLUSTER: 'ads' })).toThrow(/CLICKHOUSE_CLUSTER: needs CLICKHOUSE_URL/);
  });

  it('treats empty values as unset and trims the base URL', () => {
    const c = loadConfig({ REDIS_URL: '', PUBLIC_BASE_URL: 'https://ads.example.com/', PORT: '9000' });
    expect(c.redisUrl).toBeUndefined();
    expect(c.baseUrl).toBe('https://ads.example.com');
    expect(c.port).toBe(9000);
  });

  it('reads the AI and video provider settings, unset providers meaning the offline ones', () => {
    const d = loadConfig({});
    expect(d.ai).toMatchObject({ baseUrl: undefined, model: 'gpt-4o-mini', priceInputMicroCentsPer1k: 250, priceOutputMicroCentsPer1k: 1_000 });
    expect(d.video).toMatchObject({ baseUrl: undefined, costCents: 100, pollIntervalMs: 2_000, leaseMs: 60_000 });
    const c = loadConfig({ AI_BASE_URL: 'https://api.example.com/v1/', AI_API_KEY: 'k', VIDEO_BASE_URL: 'http://video:9000/', VIDEO_COST_CENTS: '250' });
    expect(c.ai.baseUrl).toBe('https://api.example.com/v1');
    expect(c.video).toMatchObject({ baseUrl: 'http://video:9000', costCents: 250 });
    expect(() => loadConfig({ AI_BASE_URL: 'ftp://x' })).toThrow(/AI_BASE_URL/);
    expect(() => loadConfig({ VIDEO_COST_CENTS: '1.5' })).toThrow(/VIDEO_COST_CENTS/);
    expect(() => loadConfig({ AI_PRICE_OUTPUT_MICROCENTS_PER_1K: '-1' })).toThrow(/AI_PRICE_OUTPUT_MICROCENTS_PER_1K/);
  });
});
