import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CLICK_RULES } from './click-rules.ts';
import { COUNTED_CLICK_RULES } from './counted-click-rules.ts';
import { SERVER_CLICK_RULES } from './server-click-rules.ts';

// A rule's name is the reason a publisher reads in the uncounted traffic: each must be explained where clicks are.
describe('click rule names', () => {
  const page = readFileSync(new URL('../../../docs/browser-endpoints.md', import.meta.url), 'utf8');
  const clicks = page.slice(page.indexOf('- `GET /c/<impression_id>'), page.indexOf('- `GET /c/d.<ticket>'));
  it.each([...CLICK_RULES, ...SERVER_CLICK_RULES, ...COUNTED_CLICK_RULES].map((r) => r.name))(
    '%s is in the browser endpoints page',
    (name) => {
      expect(clicks).toContain(`\`${name}\``);
    },
  );
});
