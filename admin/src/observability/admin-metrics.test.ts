import { describe, expect, it } from 'vitest';
import { routeLabel } from './admin-metrics.ts';

describe('routeLabel', () => {
  it.each([
    ['/api/adv/campaigns/42', 200, '/api/adv/campaigns/:id'],
    ['/api/adv/campaigns/42/creatives', 201, '/api/adv/campaigns/:id/creatives'],
    ['/trpc/adv.campaigns.list', 200, '/trpc/adv.campaigns.list'],
    ['/trpc/adv.campaigns.list,auth.me', 200, '/trpc/(batch)'],
    ['/trpc/<script>', 404, '/trpc/other'],
    ['/media/abc123.png', 200, '/media/:file'],
    ['/no/such/path', 404, 'other'],
    ['/cabinet/assets/index-Ab12.js', 200, '/cabinet'],
    ['/cabinet/campaigns/12', 200, '/cabinet'],
    ['/api/x%20y', 400, 'other'],
  ])('%s (%i) -> %s', (path, status, label) => {
    expect(routeLabel(path, status)).toBe(label);
  });
});
