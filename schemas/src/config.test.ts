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

  it('treats empty values as unset and trims the base URL', () => {
    const c = loadConfig({ REDIS_URL: '', PUBLIC_BASE_URL: 'https://ads.example.com/', PORT: '9000' });
    expect(c.redisUrl).toBeUndefined();
    expect(c.baseUrl).toBe('https://ads.example.com');
    expect(c.port).toBe(9000);
  });
});
