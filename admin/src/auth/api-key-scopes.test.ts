import { describe, expect, it } from 'vitest';
import { keyAllows, scopesFor } from './api-key-scopes.ts';

describe('API key scopes', () => {
  it('lets read keys query and write keys change, outside stats and postback settings', () => {
    expect(scopesFor('adv.campaigns.list', 'query')).toEqual(['read']);
    expect(scopesFor('adv.campaigns.create', 'mutation')).toEqual(['write']);
    expect(scopesFor('pub.zones.update', 'mutation')).toEqual(['write']);
    expect(keyAllows(['read'], 'adv.campaigns.create', 'mutation')).toBe(false);
    expect(keyAllows(['write'], 'adv.campaigns.list', 'query')).toBe(false);
  });

  it('keeps statistics to stats keys and postback settings to postback keys', () => {
    for (const p of ['adv.stats.get', 'pub.stats.get', 'pub.stats.uncounted', 'admin.stats'])
      expect(scopesFor(p, 'query')).toEqual(['stats']);
    expect(scopesFor('adv.profile.get', 'query')).toEqual(['postback']);
    expect(scopesFor('adv.profile.rotatePostbackSecret', 'mutation')).toEqual(['postback']);
    expect(scopesFor('adv.conversions.list', 'query')).toEqual(['read', 'postback']);
    expect(keyAllows(['read', 'write'], 'adv.profile.get', 'query')).toBe(false);
  });

  it('lets no key manage keys, sign out or change a password; any key may ask whose it is', () => {
    for (const [p, k] of [
      ['keys.create', 'mutation'],
      ['keys.list', 'query'],
      ['keys.revoke', 'mutation'],
      ['auth.changePassword', 'mutation'],
      ['auth.logoutAll', 'mutation'],
      ['auth.logout', 'mutation'],
    ] as const) {
      expect(keyAllows(['read', 'write', 'stats', 'postback'], p, k), p).toBe(false);
    }
    expect(keyAllows(['stats'], 'auth.me', 'query')).toBe(true);
    expect(keyAllows(['postback'], 'auth.me', 'query')).toBe(true);
  });
});
