import {
  campaignCreateInputSchema,
  campaignSchema,
  campaignUpdateInputSchema,
  campaignWithWarningsSchema,
  END_BEFORE_START,
  idSchema,
  interstitialOptInProblem,
} from '@adnet/schemas/api';
import type { CreativeStatus, StoredCampaign } from '@adnet/schemas/api';
import { sourceEntriesInputSchema, zoneLookupInputSchema, zoneLookupSchema } from '@adnet/schemas/source-lists';
import type { StoredSite, StoredZone } from '@adnet/schemas/publisher';
import type { SourceList, Warning } from '@adnet/schemas/source-lists';
import { addSources, removeSources, sameSources } from '../../domain/source-edits.ts';
import type { SourceEntries } from '../../domain/source-edits.ts';
import { changeSources, sourceWarnings } from '../../repos/campaign-sources.ts';
import { usdToCents, usdToMicroCents } from '@adnet/schemas/money';
import { z } from 'zod';
import { transition } from '../../domain/campaign-states.ts';
import { targetCpaFields } from '../../domain/target-cpa.ts';
import { zoneBidsAnswerSchema } from '@adnet/schemas/target-cpa';
import { CPA_CAMPAIGNS_KEY, dropZoneBids, readZoneBids } from '../../cpa/zone-bids.ts';
import type { CampaignAction } from '../../domain/campaign-states.ts';
import { AppError, fieldErrors, notFound } from '../../errors.ts';
import { advertiserCampaignsIndex, listCampaigns, loadOwnedCampaign, withSpend } from '../../repos/campaigns.ts';
import { copyCreatives, listCampaignCreatives } from '../../repos/creatives.ts';
import { checkCampaignAudiences } from '../../repos/audiences.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');
const USABLE: ReadonlySet<CreativeStatus> = new Set(['approved', 'pending_moderation', 'paused']);
const byId = z.object({ id: idSchema });

async function one(ctx: AuthedContext, c: StoredCampaign) {
  const [withSpent] = await withSpend(ctx.svc, [c]);
  return withSpent as NonNullable<typeof withSpent>;
}

const withWarnings = async (ctx: AuthedContext, c: StoredCampaign, warnings: Warning[]) => ({
  ...(await one(ctx, c)),
  warnings,
});

/** Adds or removes source entries: the campaign must be the caller's and not archived; unknown zones and sites are warned about. */
async function editSources(ctx: AuthedContext, input: SourceEntries & { id: number }, edit: 'add' | 'remove') {
  const campaign = await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.id);
  if (campaign.status === 'archived')
    throw new AppError('illegal_transition', 'An archived campaign cannot be changed');
  await changeSources(ctx.svc, input.id, (current): SourceList | undefined => {
    if (edit === 'remove') return removeSources(current, input);
    const added = addSources(current, input);
    if (!added.ok) throw fieldErrors(added.fields);
    return sameSources(added.list, current) ? undefined : added.list;
  });
  return withWarnings(ctx, campaign, edit === 'add' ? await sourceWarnings(ctx.svc, input) : []);
}

async function move(ctx: AuthedContext, id: number, action: CampaignAction) {
  await loadOwnedCampaign(ctx.svc, ctx.session.userId, id);
  // A campaign is activated with creatives still in moderation: it serves once one is approved (its `delivery` says so).
  const usableCreatives = (await listCampaignCreatives(ctx.svc, id)).filter((c) => USABLE.has(c.status)).length;
  const updated = await ctx.svc.configStore.update<StoredCampaign>(
    'campaign',
    id,
    (c) => {
      const result = transition(c.status, action, { usableCreatives, dailyBudgetCents: c.daily_budget_cents });
      if (!result.ok) throw new AppError('illegal_transition', result.reason);
      return { value: result.changed ? { ...c, status: result.next, updated_at: new Date().toISOString() } : c };
    },
    () => notFound('Campaign'),
  );
  ctx.svc.log.info({ event: 'campaign.state', campaignId: id, action, status: updated.status }, 'campaign state');
  return one(ctx, updated);
}

export const campaignsRouter = router({
  list: advertiser.output(z.object({ campaigns: z.array(campaignSchema) })).query(async ({ ctx }) => ({
    campaigns: await withSpend(ctx.svc, await listCampaigns(ctx.svc, ctx.session.userId)),
  })),

  get: advertiser
    .input(byId)
    .output(campaignSchema)
    .query(async ({ ctx, input }) => one(ctx, await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.id))),

  create: advertiser
    .input(campaignCreateInputSchema)
    .output(campaignWithWarningsSchema)
    .mutation(async ({ ctx, input }) => {
      const cpa = targetCpaFields(input, { target_cpa_cents: null, cpa_test_budget_cents: null });
      if (!cpa.ok) throw fieldErrors(cpa.fields);
      await checkCampaignAudiences(ctx.svc, ctx.session.userId, input);
      const id = await ctx.svc.configStore.nextId('campaign');
      const now = new Date().toISOString();
      const campaign: StoredCampaign = {
        id,
        advertiser_id: ctx.session.userId,
        name: input.name,
        vertical: input.vertical,
        format: input.format,
        bid_type: input.bid_type,
        bid_micro_cents: usdToMicroCents(input.bid_usd),
        status: 'draft',
        daily_budget_cents: usdToCents(input.daily_budget_usd),
        geo_include: input.geo_include,
        languages: input.languages,
        device_types: input.device_types,
        rotation: input.rotation,
        pacing: input.pacing,
        total_budget_cents: input.total_budget_usd === undefined ? null : usdToCents(input.total_budget_usd),
        os_include: input.os_include,
        browser_include: input.browser_include,
        connection_types: input.connection_types,
        frequency_cap: input.frequency_cap,
        start_at: input.start_at,
        end_at: input.end_at,
        dayparting: input.dayparting,
        timezone: input.timezone,
        bid_adjustments: input.bid_adjustments,
        target_cpa_cents: cpa.target_cpa_cents,
        cpa_test_budget_cents: cpa.cpa_test_budget_cents,
        audiences_include: input.audiences_include,
        audiences_exclude: input.audiences_exclude,
        ...(input.interstitial ? { interstitial: true } : {}),
        created_at: now,
        updated_at: now,
      };
      await ctx.svc.configStore.commit('campaign', id, {
        expectedRev: 0,
        value: campaign,
        ops: [
          { cmd: 'SADD', key: advertiserCampaignsIndex(ctx.session.userId), member: id },
          // The target-CPA controller's work list (admin/src/cpa/).
          ...(cpa.target_cpa_cents === null ? [] : [{ cmd: 'SADD' as const, key: CPA_CAMPAIGNS_KEY, member: id }]),
        ],
      });
      const sources = input.sources;
      if (sources) await changeSources(ctx.svc, id, () => sources);
      ctx.svc.log.info(
        { event: 'campaign.created', campaignId: id, advertiserId: ctx.session.userId },
        'campaign created',
      );
      return withWarnings(ctx, campaign, await sourceWarnings(ctx.svc, sources ?? {}, input.bid_adjustments));
    }),

  update: advertiser
    .input(campaignUpdateInputSchema)
    .output(campaignWithWarningsSchema)
    .mutation(async ({ ctx, input }) => {
      await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.id);
      await checkCampaignAudiences(ctx.svc, ctx.session.userId, input);
      const updated = await ctx.svc.configStore.update<StoredCampaign>(
        'campaign',
        input.id,
        (c) => {
          if (c.status === 'archived')
            throw new AppError('illegal_transition', 'An archived campaign cannot be changed');
          const next: StoredCampaign = { ...c, updated_at: new Date().toISOString() };
          if (input.name !== undefined) next.name = input.name;
          if (input.vertical !== undefined) next.vertical = input.vertical;
          if (input.bid_type !== undefined) next.bid_type = input.bid_type;
          if (input.bid_usd !== undefined) next.bid_micro_cents = usdToMicroCents(input.bid_usd);
          if (input.daily_budget_usd !== undefined) next.daily_budget_cents = usdToCents(input.daily_budget_usd);
          if (input.geo_include !== undefined) next.geo_include = input.geo_include;
          if (input.languages !== undefined) next.languages = input.languages;
          if (input.device_types !== undefined) next.device_types = input.device_types;
          if (input.rotation !== undefined) next.rotation = input.rotation;
          if (input.pacing !== undefined) next.pacing = input.pacing;
          if (input.total_budget_usd !== undefined)
            next.total_budget_cents = input.total_budget_usd === null ? null : usdToCents(input.total_budget_usd);
          if (input.os_include !== undefined) next.os_include = input.os_include;
          if (input.browser_include !== undefined) next.browser_include = input.browser_include;
          if (input.connection_types !== undefined) next.connection_types = input.connection_types;
          // Frequency cap and schedule: null removes one; the end is checked against the start as it will be stored.
          if (input.frequency_cap !== undefined) next.frequency_cap = input.frequency_cap;
          if (input.start_at !== undefined) next.start_at = input.start_at;
          if (input.end_at !== undefined) next.end_at = input.end_at;
          if (input.dayparting !== undefined) next.dayparting = input.dayparting;
          if (input.timezone !== undefined) next.timezone = input.timezone;
          if (input.bid_adjustments !== undefined) next.bid_adjustments = input.bid_adjustments;
          if (input.audiences_include !== undefined) next.audiences_include = input.audiences_include;
          if (input.audiences_exclude !== undefined) next.audiences_exclude = input.audiences_exclude;
          if (input.interstitial !== undefined) {
            const problem = interstitialOptInProblem(c.format, input.interstitial);
            if (problem) throw fieldErrors({ interstitial: problem });
            next.interstitial = input.interstitial;
          }
          const both = (next.audiences_include ?? []).filter((a) => next.audiences_exclude?.includes(a));
          if (both.length)
            throw fieldErrors({
              audiences_exclude: `must not name an audience audiences_include names: ${both.join(', ')}`,
            });
          if (next.start_at && next.end_at && next.end_at <= next.start_at)
            throw fieldErrors({ end_at: END_BEFORE_START });
          const cpa = targetCpaFields(input, {
            target_cpa_cents: c.target_cpa_cents ?? null,
            cpa_test_budget_cents: c.cpa_test_budget_cents ?? null,
          });
          if (!cpa.ok) throw fieldErrors(cpa.fields);
          next.target_cpa_cents = cpa.target_cpa_cents;
          next.cpa_test_budget_cents = cpa.cpa_test_budget_cents;
          if (cpa.target_cpa_cents === null) return { value: next };
          return { value: next, ops: [{ cmd: 'SADD', key: CPA_CAMPAIGNS_KEY, member: input.id }] };
        },
        () => notFound('Campaign'),
      );
      // A target turned off takes its zones' bids and exclusions with it (the engines already ignore them).
      if (!updated.target_cpa_cents) await dropZoneBids(ctx.svc, input.id);
      const sources = input.sources;
      // Replaced whole, after the campaign change (which refuses an archived campaign).
      if (sources)
        await changeSources(ctx.svc, input.id, (current) => (sameSources(current, sources) ? undefined : sources));
      return withWarnings(ctx, updated, await sourceWarnings(ctx.svc, sources ?? {}, input.bid_adjustments));
    }),

  /** Target CPA: each zone's state, bid, spend and conversions (docs/delivery.md, "Target CPA"). */
  zoneBids: advertiser
    .input(byId)
    .output(zoneBidsAnswerSchema)
    .query(async ({ ctx, input }) =>
      readZoneBids(ctx.svc, await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.id)),
    ),

  /** Source list edits: the entries are added to (or taken from) the list, its mode unchanged. */
  sources: router({
    add: advertiser
      .input(sourceEntriesInputSchema.extend({ id: idSchema }))
      .output(campaignWithWarningsSchema)
      .mutation(({ ctx, input }) => editSources(ctx, input, 'add')),
    remove: advertiser
      .input(sourceEntriesInputSchema.extend({ id: idSchema }))
      .output(campaignWithWarningsSchema)
      .mutation(({ ctx, input }) => editSources(ctx, input, 'remove')),
    /**
     * The zones the statistics name by id: subid (public: every widget snippet carries one), name and site domain, so
     * a placement reads by name.
     */
    zones: advertiser
      .input(zoneLookupInputSchema)
      .output(zoneLookupSchema)
      .query(async ({ ctx, input }) => {
        const zones = await ctx.svc.configStore.readMany<StoredZone>('zone', input.ids);
        const siteIds = [...new Set(zones.map((z) => String(z.site_id)))];
        const sites = siteIds.length ? await ctx.svc.configStore.readMany<StoredSite>('site', siteIds) : [];
        const domain = new Map(sites.map((x) => [x.id, x.domain]));
        return {
          zones: zones.map((z) => ({
            id: z.id,
            subid: z.subid,
            site_id: z.site_id,
            name: z.name,
            domain: domain.get(z.site_id) ?? '',
          })),
        };
      }),
  }),

  activate: advertiser
    .input(byId)
    .output(campaignSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'activate')),
  pause: advertiser
    .input(byId)
    .output(campaignSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'pause')),
  archive: advertiser
    .input(byId)
    .output(campaignSchema)
    .mutation(({ ctx, input }) => move(ctx, input.id, 'archive')),

  /**
   * A copy to change and launch: every setting, as a draft named "… (copy)", with the live
   * creatives (creatives.ts says which keep their approval). Spend and statistics start at zero.
   */
  duplicate: advertiser
    .input(byId)
    .output(campaignSchema)
    .mutation(async ({ ctx, input }) => {
      const source = await loadOwnedCampaign(ctx.svc, ctx.session.userId, input.id);
      const id = await ctx.svc.configStore.nextId('campaign');
      const now = new Date().toISOString();
      const name = `${source.name.slice(0, 120 - ' (copy)'.length)} (copy)`;
      const copy: StoredCampaign = { ...source, id, name, status: 'draft', created_at: now, updated_at: now };
      await ctx.svc.configStore.commit('campaign', id, {
        expectedRev: 0,
        value: copy,
        ops: [
          { cmd: 'SADD', key: advertiserCampaignsIndex(ctx.session.userId), member: id },
          // The copy tests its zones afresh: its counts are its own.
          ...(copy.target_cpa_cents ? [{ cmd: 'SADD' as const, key: CPA_CAMPAIGNS_KEY, member: id }] : []),
        ],
      });
      const creatives = await copyCreatives(ctx.svc, await listCampaignCreatives(ctx.svc, source.id), copy);
      ctx.svc.log.info(
        { event: 'campaign.duplicated', campaignId: id, from: source.id, creatives },
        'campaign duplicated',
      );
      return one(ctx, copy);
    }),
});
