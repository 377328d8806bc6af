// `pnpm adnet demo`: from nothing to an ad served and clicked on this machine. Everything goes through
// the API's own procedures (the tRPC router, called in process with tokens made for the demo's accounts),
// so the demo world obeys the same rules as one built in the cabinet; a second run reuses what the first made.
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Role } from '@adnet/schemas/api';
import type { Services } from '@adnet/admin/services';
import { z } from 'zod';
import { CommandError } from './command.ts';
import type { Command } from './command.ts';
import { createVerifiedAccount } from './user-create.ts';

/**
 * The demo publisher's site. Browsers resolve every `*.localhost` name to this machine (RFC 6761), so a
 * page at `http://demo.localhost:<port>/demo/<subid>`, which the product serves, is on the site's domain
 * as the engine sees it (the page's Origin), with no DNS, hosts file or network.
 */
export const DEMO_SITE_DOMAIN = 'demo.localhost';
const CAMPAIGN_NAME = 'Demo campaign';
const ZONE_NAME = 'Demo native zone';
const IMAGE = new URL('../../assets/demo-ad.png', import.meta.url);
/** The advertiser's balance is topped up to this when it has fallen below a tenth of it. */
const FUNDS_CENTS = 10_000;

const ACCOUNTS: readonly { role: Role; email: string }[] = [
  { role: 'advertiser', email: 'demo-advertiser@example.com' },
  { role: 'publisher', email: 'demo-publisher@example.com' },
  { role: 'admin', email: 'demo-admin@example.com' },
];

/** The demo page of a zone: the base URL's scheme and port on the demo site's host. */
export function demoPageUrl(baseUrl: string, subid: string): string {
  const url = new URL(baseUrl);
  url.hostname = DEMO_SITE_DOMAIN;
  return `${url.origin}/demo/${subid}`;
}

/** The API as one account sees it, through a token made for this run (revoked at the end). */
async function apiAs(svc: Services, userId: number, role: Role) {
  // The whole router, loaded for this command only: the other commands start faster without it.
  const { createCaller } = await import('@adnet/admin/router');
  const { token } = await svc.tokens.issue(userId, role, 600);
  const caller = createCaller({
    svc,
    req: {
      authorization: `Bearer ${token}`,
      sessionCookie: undefined,
      site: { fetchSite: undefined, origin: undefined, cabinet: undefined },
      https: false,
      ip: '127.0.0.1',
      requestId: randomUUID(),
    },
    setCookies: [],
  });
  return { caller, revoke: () => svc.tokens.revoke(token.split('|')[0] ?? '') };
}

/**
 * The demo accounts' passwords, made at their creation and kept owner-only in `DATA_DIR/demo-accounts.json`
 * so that every run can print them (they are random: a demo run on a reachable server leaves no known password).
 */
async function accounts(svc: Services, dataDir: string) {
  const file = join(dataDir, 'demo-accounts.json');
  // A file that is missing or not ours reads as no passwords: the accounts still work, their passwords are not shown.
  const kept: Record<string, string> = await readFile(file, 'utf8')
    .then((t) => z.record(z.string(), z.string()).parse(JSON.parse(t)))
    .catch(() => ({}));
  const made: { role: Role; id: number; email: string; password: string | undefined; created: boolean }[] = [];
  for (const a of ACCOUNTS) {
    const existing = await svc.users.getByEmail(a.email);
    if (existing) {
      if (existing.role !== a.role)
        throw new CommandError(`${a.email} is a ${existing.role} account; the demo needs it to be its ${a.role}`);
      made.push({ ...a, id: existing.id, password: kept[a.email], created: false });
      continue;
    }
    const password = randomBytes(12).toString('base64url');
    const user = await createVerifiedAccount(svc, { ...a, password });
    kept[a.email] = password;
    made.push({ ...a, id: user.id, password, created: true });
  }
  await mkdir(dataDir, { recursive: true });
  await writeFile(file, JSON.stringify(kept, null, 2) + '\n', { mode: 0o600 });
  const by = (role: Role) => made.find((m) => m.role === role) as (typeof made)[number];
  return { advertiser: by('advertiser'), publisher: by('publisher'), admin: by('admin'), file };
}

/** Resolves once the engines serve the zone's widget (the configuration reached them), or after `ms`. */
async function zoneServing(widgetUrl: string, ms: number): Promise<boolean> {
  for (const until = Date.now() + ms; Date.now() < until; await new Promise((r) => setTimeout(r, 200))) {
    const body = await fetch(widgetUrl).then(
      (r) => (r.ok ? r.text() : ''),
      () => '',
    );
    if (body && !body.startsWith('/* adnet: zone')) return true;
  }
  return false;
}

export const demo: Command = {
  name: 'demo',
  usage: 'demo',
  options: {},
  async run({ connect, out }) {
    const { svc, target } = await connect();
    const { baseUrl, adBaseUrl } = target.config.server;
    const { dataDir } = target.config.storage;
    const acc = await accounts(svc, dataDir);
    const adv = await apiAs(svc, acc.advertiser.id, 'advertiser');
    const pub = await apiAs(svc, acc.publisher.id, 'publisher');
    const admin = await apiAs(svc, acc.admin.id, 'admin');
    const notes: string[] = [];
    try {
      // Funds: topped up, so a run after the demo spent its balance serves again.
      const balance = await svc.ledger.balance(acc.advertiser.id);
      if (balance < FUNDS_CENTS / 10) {
        await svc.ledger.credit(acc.advertiser.id, FUNDS_CENTS - balance, 'demo funds (pnpm adnet demo)');
        notes.push(`credited $${((FUNDS_CENTS - balance) / 100).toFixed(2)}`);
      }

      // The publisher's site, approved for local use (no ownership check can reach it), and a native zone on it.
      let site = (await pub.caller.pub.sites.list()).sites.find((s) => s.domain === DEMO_SITE_DOMAIN);
      if (!site) {
        site = await pub.caller.pub.sites.create({
          domain: DEMO_SITE_DOMAIN,
          category: 'technology_computing',
          language: 'en',
          traffic_estimate_daily: 100,
        });
        notes.push(`created site #${site.id}`);
      }
      if (site.status !== 'approved')
        await (await import('@adnet/admin/publisher')).approveSiteByOperator(svc, site.id);
      let zone = (await pub.caller.pub.zones.list()).zones.find(
        (z) => z.site_id === site.id && z.name === ZONE_NAME && z.format === 'native',
      );
      if (!zone) {
        zone = await pub.caller.pub.zones.create({ site_id: site.id, name: ZONE_NAME, format: 'native' });
        notes.push(`created zone ${zone.subid}`);
      }
      if (zone.status !== 'active') zone = await pub.caller.pub.zones.resume({ id: zone.id });

      // The advertiser's campaign: every country (a visitor on this machine has none), every language, no pacing
      // (an even pace may hold the first impressions back), with the image the repository ships.
      let campaign = (await adv.caller.adv.campaigns.list()).campaigns.find(
        (c) => c.name === CAMPAIGN_NAME && c.status !== 'archived',
      );
      if (!campaign) {
        campaign = await adv.caller.adv.campaigns.create({
          name: CAMPAIGN_NAME,
          vertical: 'ecommerce',
          format: 'native',
          bid_type: 'cpm',
          bid_usd: 1,
          daily_budget_usd: 10,
          pacing: 'asap',
        });
        notes.push(`created campaign #${campaign.id}`);
      }
      const creatives = (await adv.caller.adv.creatives.list({ campaign_id: campaign.id })).creatives;
      let creative = creatives.find(
        (c) => c.status === 'approved' || c.status === 'pending_moderation' || c.status === 'paused',
      );
      if (!creative) {
        const form = new FormData();
        form.set('campaign_id', String(campaign.id));
        form.set('title', 'adnet demo ad');
        form.set('body', 'Served through the widget on this machine. Click to see the landing page.');
        form.set('cta_text', 'Open');
        form.set('landing_url', `${baseUrl}/demo/landing?click_id={click_id}`);
        form.set('image', new Blob([await readFile(IMAGE)], { type: 'image/png' }), 'demo-ad.png');
        creative = await adv.caller.adv.creatives.create(form);
        notes.push(`created creative #${creative.id}`);
      }
      if (creative.status === 'pending_moderation') await admin.caller.admin.approveCreative({ id: creative.id });
      if (creative.status === 'paused') await adv.caller.adv.creatives.resume({ id: creative.id });
      if (campaign.status !== 'active') campaign = await adv.caller.adv.campaigns.activate({ id: campaign.id });

      const widgetUrl = `${adBaseUrl}/w/${zone.subid}.js`;
      const serving = target.product ? await zoneServing(widgetUrl, 15_000) : false;
      const page = demoPageUrl(baseUrl, zone.subid);
      const password = (p: string | undefined) => p ?? `(kept in ${acc.file} only when this command made the account)`;
      out(
        notes.length
          ? `Demo ready (${notes.join(', ')}).`
          : 'Demo ready (everything was already there; nothing new made).',
      );
      out('');
      out(
        `  Open the demo page, a page of the site ${DEMO_SITE_DOMAIN} showing zone ${zone.subid} through the widget:`,
      );
      out(`    ${page}`);
      if (!target.product) out(`  (no product runs on this data directory: start it before opening the page)`);
      else if (!serving) out(`  (the engines have not picked the zone up yet: give them a few seconds)`);
      out(
        '  Click the ad: the landing page opens. Within a few seconds the statistics count the impression and the click:',
      );
      out(`    cabinet: ${baseUrl}/cabinet  (sign in as the advertiser, then Statistics)`);
      out(`    curl:    TOKEN=$(curl -s -X POST ${baseUrl}/api/auth/token -H 'content-type: application/json' \\`);
      out(
        `               -d '{"email":"${acc.advertiser.email}","password":"${acc.advertiser.password ?? '<password>'}"}' | node -pe 'JSON.parse(require("fs").readFileSync(0)).token')`,
      );
      const today = new Date().toISOString().slice(0, 10);
      out(
        `             curl -s "${baseUrl}/api/adv/stats?from=${today}&to=${today}&group_by=campaign" -H "authorization: Bearer $TOKEN"`,
      );
      out('');
      out('  Accounts (passwords also in ' + acc.file + '):');
      for (const a of [acc.advertiser, acc.publisher, acc.admin])
        out(`    ${a.role.padEnd(10)} ${a.email}  ${password(a.password)}`);
      out(
        `  Campaign #${campaign.id} "${campaign.name}" (${campaign.status}), native zone ${zone.subid} on site #${site.id} ${DEMO_SITE_DOMAIN} (approved).`,
      );
    } finally {
      await Promise.all([adv.revoke(), pub.revoke(), admin.revoke()]);
    }
  },
};
