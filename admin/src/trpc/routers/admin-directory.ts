import {
  adminAccountSchema,
  adminNamesInputSchema,
  adminNamesSchema,
  adminCampaignSchema,
  advertiserPageSchema,
  advertiserSearchInputSchema,
  campaignPageSchema,
  campaignSearchInputSchema,
  publisherPageSchema,
  publisherSearchInputSchema,
  sitePageSchema,
  siteSearchInputSchema,
} from '@adnet/schemas/admin-directory';
import type { CampaignRow, ModerationItem, SiteRow } from '@adnet/schemas/admin-directory';
import { idSchema } from '@adnet/schemas/api';
import type { Creative, StoredCampaign } from '@adnet/schemas/api';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import { z } from 'zod';
import { directoryPage, landingDomain } from '../../domain/directory.ts';
import { notFound } from '../../errors.ts';
import { listCampaigns } from '../../repos/campaigns.ts';
import { listCampaignCreatives, moderationQueue } from '../../repos/creatives.ts';
import { listOwned, publisherSitesIndex, publisherZonesIndex } from '../../repos/publisher.ts';
import type { Services } from '../../services.ts';
import type { UserRecord } from '../../storage/users.ts';
import { roleProcedure, router } from '../init.ts';

const admin = roleProcedure('admin');

/**
 * Every account of a role, read a page at a time. The directory filters in process: the admins are few and
 * the accounts number in the thousands, where one pass over them costs less than an index kept on every write.
 */
async function allUsers(svc: Services, role: 'advertiser' | 'publisher'): Promise<UserRecord[]> {
  const users: UserRecord[] = [];
  for (let offset = 0; ; offset += 500) {
    const page = await svc.users.listByRole(role, offset, 500);
    users.push(...page);
    if (page.length < 500) return users;
  }
}

const campaignRow = (c: StoredCampaign, email: string): CampaignRow => ({
  id: c.id,
  name: c.name,
  status: c.status,
  format: c.format,
  vertical: c.vertical,
  advertiser_id: c.advertiser_id,
  advertiser_email: email,
});
const siteRow = (s: StoredSite, email: string): SiteRow => ({
  id: s.id,
  domain: s.domain,
  status: s.status,
  category: s.category,
  publisher_id: s.publisher_id,
  publisher_email: email,
});

async function allCampaigns(svc: Services): Promise<CampaignRow[]> {
  const advertisers = await allUsers(svc, 'advertiser');
  const lists = await Promise.all(advertisers.map((a) => listCampaigns(svc, a.id)));
  return lists.flatMap((list, i) => list.map((c) => campaignRow(c, advertisers[i]?.email ?? '')));
}

async function allSites(svc: Services): Promise<SiteRow[]> {
  const publishers = await allUsers(svc, 'publisher');
  const lists = await Promise.all(publishers.map((p) => listOwned<StoredSite>(svc, 'site', publisherSitesIndex(p.id))));
  return lists.flatMap((list, i) => list.map((s) => siteRow(s, publishers[i]?.email ?? '')));
}

/** Creatives waiting for a decision with whose they are, what the campaign sells and where the ad leads. */
export async function moderationItems(svc: Services, limit: number): Promise<ModerationItem[]> {
  const creatives = await moderationQueue(svc, limit);
  const campaignIds = [...new Set(creatives.map((c) => c.campaign_id))];
  const advertiserIds = [...new Set(creatives.map((c) => c.advertiser_id))];
  const [campaigns, users] = await Promise.all([
    svc.configStore.readMany<StoredCampaign>('campaign', campaignIds),
    Promise.all(advertiserIds.map((id) => svc.users.get(id))),
  ]);
  const campaignById = new Map(campaigns.map((c) => [c.id, c]));
  const emailById = new Map(users.filter((u) => u !== undefined).map((u) => [u.id, u.email]));
  return creatives.map((c: Creative) => {
    const campaign = campaignById.get(c.campaign_id);
    return {
      ...c,
      advertiser_email: emailById.get(c.advertiser_id) ?? '',
      campaign_name: campaign?.name ?? '',
      vertical: campaign?.vertical ?? null,
      landing_domain: landingDomain(c.landing_url),
    };
  });
}

export const adminDirectoryRouter = router({
  searchAdvertisers: admin
    .input(advertiserSearchInputSchema)
    .output(advertiserPageSchema)
    .query(async ({ ctx, input }) => {
      const users = await allUsers(ctx.svc, 'advertiser');
      const [balances, campaigns] = await Promise.all([
        Promise.all(users.map((u) => ctx.svc.ledger.balance(u.id))),
        Promise.all(users.map((u) => listCampaigns(ctx.svc, u.id))),
      ]);
      const rows = users.map((u, i) => ({
        id: u.id,
        email: u.email,
        balance_cents: balances[i] ?? 0,
        campaigns: campaigns[i]?.length ?? 0,
        created_at: u.createdAt,
        names: campaigns[i]?.map((c) => c.name) ?? [],
      }));
      const page = directoryPage(rows, input, {
        // An advertiser is found by its campaigns' names as well: support hears of a campaign first.
        text: (r) => [r.email, ...r.names],
        id: (r) => r.id,
        keys: {
          id: (r) => r.id,
          email: (r) => r.email,
          balance: (r) => r.balance_cents,
          created_at: (r) => r.created_at,
        },
      });
      return { ...page, items: page.items.map(({ names: _names, ...r }) => r) };
    }),

  searchPublishers: admin
    .input(publisherSearchInputSchema)
    .output(publisherPageSchema)
    .query(async ({ ctx, input }) => {
      const users = await allUsers(ctx.svc, 'publisher');
      const sites = await Promise.all(
        users.map((u) => listOwned<StoredSite>(ctx.svc, 'site', publisherSitesIndex(u.id))),
      );
      const rows = users.map((u, i) => ({
        id: u.id,
        email: u.email,
        sites: sites[i]?.length ?? 0,
        created_at: u.createdAt,
        domains: sites[i]?.map((s) => s.domain) ?? [],
      }));
      const page = directoryPage(rows, input, {
        text: (r) => [r.email, ...r.domains],
        id: (r) => r.id,
        keys: { id: (r) => r.id, email: (r) => r.email, sites: (r) => r.sites, created_at: (r) => r.created_at },
      });
      return { ...page, items: page.items.map(({ domains: _domains, ...r }) => r) };
    }),

  searchSites: admin
    .input(siteSearchInputSchema)
    .output(sitePageSchema)
    .query(async ({ ctx, input }) => {
      const rows = (await allSites(ctx.svc)).filter((s) => !input.status || s.status === input.status);
      return directoryPage(rows, input, {
        text: (r) => [r.domain, r.publisher_email],
        id: (r) => r.id,
        keys: {
          id: (r) => r.id,
          domain: (r) => r.domain,
          status: (r) => r.status,
          publisher: (r) => r.publisher_email,
        },
      });
    }),

  searchCampaigns: admin
    .input(campaignSearchInputSchema)
    .output(campaignPageSchema)
    .query(async ({ ctx, input }) => {
      const rows = (await allCampaigns(ctx.svc)).filter((c) => !input.status || c.status === input.status);
      return directoryPage(rows, input, {
        text: (r) => [r.name, r.advertiser_email],
        id: (r) => r.id,
        keys: { id: (r) => r.id, name: (r) => r.name, status: (r) => r.status, advertiser: (r) => r.advertiser_email },
      });
    }),

  /** One account: an advertiser with balance, ledger and campaigns; a publisher with sites and zones. */
  account: admin
    .input(z.object({ id: idSchema }))
    .output(adminAccountSchema)
    .query(async ({ ctx, input }) => {
      const user = await ctx.svc.users.get(input.id);
      if (!user) throw notFound('Account');
      const base = { id: user.id, email: user.email, role: user.role, created_at: user.createdAt };
      if (user.role === 'advertiser') {
        const [balance, ledger, campaigns] = await Promise.all([
          ctx.svc.ledger.balance(user.id),
          ctx.svc.ledger.entries(user.id, 200),
          listCampaigns(ctx.svc, user.id),
        ]);
        return {
          ...base,
          balance_cents: balance,
          ledger,
          campaigns: campaigns.map((c) => {
            const { advertiser_email: _email, ...row } = campaignRow(c, '');
            return row;
          }),
          sites: [],
          zones: [],
        };
      }
      if (user.role === 'publisher') {
        const [sites, zones] = await Promise.all([
          listOwned<StoredSite>(ctx.svc, 'site', publisherSitesIndex(user.id)),
          listOwned<StoredZone>(ctx.svc, 'zone', publisherZonesIndex(user.id)),
        ]);
        return {
          ...base,
          balance_cents: null,
          ledger: [],
          campaigns: [],
          sites: sites.map((s) => {
            const { publisher_email: _email, ...row } = siteRow(s, '');
            return row;
          }),
          zones: zones.map((z) => ({ id: z.id, name: z.name, subid: z.subid, format: z.format, site_id: z.site_id })),
        };
      }
      return { ...base, balance_cents: null, ledger: [], campaigns: [], sites: [], zones: [] };
    }),

  /** One campaign of any advertiser, with its creatives. */
  campaign: admin
    .input(z.object({ id: idSchema }))
    .output(adminCampaignSchema)
    .query(async ({ ctx, input }) => {
      const found = await ctx.svc.configStore.read<StoredCampaign>('campaign', input.id);
      if (!found) throw notFound('Campaign');
      const c = found.value;
      const [owner, creatives] = await Promise.all([
        ctx.svc.users.get(c.advertiser_id),
        listCampaignCreatives(ctx.svc, c.id),
      ]);
      return {
        ...campaignRow(c, owner?.email ?? ''),
        daily_budget_cents: c.daily_budget_cents,
        created_at: c.created_at,
        creatives: creatives.map((cr) => ({
          id: cr.id,
          title: cr.title,
          status: cr.status,
          landing_url: cr.landing_url,
        })),
      };
    }),

  /** Names beside the ids of a statistics breakdown: read by id, so as cheap as the rows are few. */
  names: admin
    .input(adminNamesInputSchema)
    .output(adminNamesSchema)
    .query(async ({ ctx, input }) => {
      const [campaigns, sites, zones] = await Promise.all([
        ctx.svc.configStore.readMany<StoredCampaign>('campaign', input.campaigns),
        ctx.svc.configStore.readMany<StoredSite>('site', input.sites),
        ctx.svc.configStore.readMany<StoredZone>('zone', input.zones),
      ]);
      const owners = [...new Set([...campaigns.map((c) => c.advertiser_id), ...sites.map((s) => s.publisher_id)])];
      const users = await Promise.all(owners.map((id) => ctx.svc.users.get(id)));
      const email = new Map(users.filter((u) => u !== undefined).map((u) => [u.id, u.email]));
      return {
        campaigns: campaigns.map((c) => ({
          id: c.id,
          name: c.name,
          advertiser_id: c.advertiser_id,
          advertiser_email: email.get(c.advertiser_id) ?? '',
        })),
        sites: sites.map((s) => ({
          id: s.id,
          domain: s.domain,
          publisher_id: s.publisher_id,
          publisher_email: email.get(s.publisher_id) ?? '',
        })),
        zones: zones.map((z) => ({ id: z.id, name: z.name, subid: z.subid, site_id: z.site_id })),
      };
    }),
});
