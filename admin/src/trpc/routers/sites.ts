import { idSchema, reasonInputSchema } from '@adnet/schemas/api';
import { siteCreateInputSchema, siteSchema, siteUpdateInputSchema } from '@adnet/schemas/publisher';
import type { StoredSite } from '@adnet/schemas/publisher';
import { splitControls } from '@adnet/schemas/publisher-controls';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';
import { AppError, notFound } from '../../errors.ts';
import { definedFields, updateEntity } from '../../repos/owned-entity.ts';
import {
  APPROVED_SITES,
  SITE_REVIEW_QUEUE,
  adsTxtLine,
  listOwned,
  loadOwnedSite,
  publisherDomainsIndex,
  publisherSitesIndex,
  siteOut,
} from '../../repos/publisher.ts';
import type { IndexOp } from '../../storage/config-store.ts';
import { checkAdsTxt } from '../../verify/ads-txt.ts';
import { verifySite } from '../../verify/site-verifier.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';

const publisher = roleProcedure('publisher');
const admin = roleProcedure('admin');
const byId = z.object({ id: idSchema });

/** A review step: only from the `from` statuses (else 409 illegal_transition), with its queue's index changes. */
function setStatus(
  ctx: AuthedContext,
  id: number,
  {
    from,
    patch,
    ops,
  }: { from: readonly StoredSite['status'][]; patch: Partial<StoredSite>; ops: (s: StoredSite) => IndexOp[] },
) {
  return updateEntity<StoredSite>(
    ctx.svc.configStore,
    { kind: 'site', id, label: 'Site' },
    {
      patch: (s) => {
        if (!from.includes(s.status)) throw new AppError('illegal_transition', `Site is ${s.status}`);
        return patch;
      },
      ops,
    },
  );
}

/** The publisher hears of the review's result by email. */
async function noticeOf(ctx: AuthedContext, site: StoredSite): Promise<StoredSite> {
  if (site.status === 'approved' || site.status === 'rejected') {
    await ctx.svc.notifier.notify({
      kind: 'site_moderated',
      user_id: site.publisher_id,
      site_id: site.id,
      domain: site.domain,
      status: site.status,
      reason: site.rejection_reason,
    });
  }
  return site;
}

export const sitesRouter = router({
  create: publisher
    .input(siteCreateInputSchema)
    .output(siteSchema)
    .mutation(async ({ ctx, input }) => {
      const { domain } = input;
      const id = await ctx.svc.configStore.nextId('site');
      // One site per domain per publisher: the claim is atomic.
      if (!(await ctx.svc.configStore.claim({ key: publisherDomainsIndex(ctx.session.userId), field: domain }, id))) {
        throw new AppError('conflict', `You already registered ${domain}`);
      }
      const now = new Date().toISOString();
      const site: StoredSite = {
        id,
        publisher_id: ctx.session.userId,
        domain,
        category: input.category,
        language: input.language,
        traffic_estimate_daily: input.traffic_estimate_daily,
        verification_code: `adnet-${randomBytes(12).toString('hex')}`,
        status: 'draft',
        rejection_reason: null,
        verified_method: null,
        created_at: now,
        updated_at: now,
        ...splitControls(input).controls,
      };
      await ctx.svc.configStore.commit('site', id, {
        expectedRev: 0,
        value: site,
        ops: [{ cmd: 'SADD', key: publisherSitesIndex(ctx.session.userId), member: id }],
      });
      return siteOut(ctx.svc, site);
    }),

  list: publisher.output(z.object({ sites: z.array(siteSchema) })).query(async ({ ctx }) => ({
    sites: (await listOwned<StoredSite>(ctx.svc, 'site', publisherSitesIndex(ctx.session.userId))).map((s) =>
      siteOut(ctx.svc, s),
    ),
  })),

  get: publisher
    .input(byId)
    .output(siteSchema)
    .query(async ({ ctx, input }) => siteOut(ctx.svc, await loadOwnedSite(ctx.svc, ctx.session.userId, input.id))),

  update: publisher
    .input(siteUpdateInputSchema)
    .output(siteSchema)
    .mutation(async ({ ctx, input }) => {
      const { controls, rest } = splitControls(input);
      const { id, ...fields } = rest;
      const site = await updateEntity<StoredSite>(
        ctx.svc.configStore,
        { kind: 'site', id, label: 'Site', owner: ctx.session.userId },
        { patch: { ...definedFields<StoredSite>(fields), ...controls } },
      );
      return siteOut(ctx.svc, site);
    }),

  /**
   * Looks for the site's ads.txt line in its `/ads.txt` (verify/ads-txt.ts: the verification fetcher and its rules)
   * and keeps the result on the site (`ads_txt_status`, `ads_txt_checked_at`). Any site of the publisher's, at any
   * status; a site that cannot be reached is a result (`unreachable`), not an error.
   */
  checkAdsTxt: publisher
    .input(byId)
    .output(siteSchema)
    .mutation(async ({ ctx, input }) => {
      const site = await loadOwnedSite(ctx.svc, ctx.session.userId, input.id);
      const result = await checkAdsTxt(site.domain, adsTxtLine(ctx.svc, site.publisher_id), {
        ...ctx.svc.config.verify,
        maxBytes: 512 * 1024,
        maxRedirects: 3,
      });
      if (result.status === 'unreachable')
        ctx.svc.log.info(
          { event: 'site.ads_txt_unreachable', siteId: site.id, reason: result.reason, detail: result.detail },
          'ads.txt could not be fetched',
        );
      const checked = await ctx.svc.configStore.update<StoredSite>(
        'site',
        site.id,
        (s) => ({ value: { ...s, ads_txt_status: result.status, ads_txt_checked_at: new Date().toISOString() } }),
        () => notFound('Site'),
      );
      return siteOut(ctx.svc, checked);
    }),

  /** 200 {ok, method, status} when the code is found; 422 {ok: false, error} otherwise (status unchanged). */
  verify: publisher
    .input(byId)
    .output(z.object({ ok: z.literal(true), method: z.string(), status: z.string() }))
    .mutation(async ({ ctx, input }) => {
      const site = await loadOwnedSite(ctx.svc, ctx.session.userId, input.id);
      if (site.status !== 'draft' && site.status !== 'rejected')
        throw new AppError('illegal_transition', `Site is already ${site.status}`);
      const { verify } = ctx.svc.config;
      const result = await verifySite(site.domain, site.verification_code, {
        ...verify,
        maxBytes: 512 * 1024,
        maxRedirects: 3,
      });
      if (!result.ok) {
        // The publisher gets the generic message; what was resolved and refused is for the operator.
        ctx.svc.log.info(
          { event: 'site.verify_failed', siteId: site.id, reason: result.reason, detail: result.detail },
          'site verification failed',
        );
        throw new AppError('unprocessable', result.error);
      }
      const updated = await setStatus(ctx, site.id, {
        from: ['draft', 'rejected'],
        patch: { status: 'pending_review', verified_method: result.method, rejection_reason: null },
        ops: () => [{ cmd: 'ZADD', key: SITE_REVIEW_QUEUE, member: site.id, score: Date.now() }],
      });
      return { ok: true as const, method: result.method, status: updated.status };
    }),
});

/** An admin's decision on a site in review: `patch` applied, the site out of the queue, `also` written with it. */
async function decide(ctx: AuthedContext, id: number, patch: Partial<StoredSite>, also: IndexOp[] = []) {
  const site = await setStatus(ctx, id, {
    from: ['pending_review'],
    patch,
    ops: () => [{ cmd: 'ZREM', key: SITE_REVIEW_QUEUE, member: id }, ...also],
  });
  return siteOut(ctx.svc, await noticeOf(ctx, site));
}

export const adminSitesRouter = router({
  siteQueue: admin.output(z.object({ sites: z.array(siteSchema) })).query(async ({ ctx }) => {
    const ids = await ctx.svc.configStore.ranked(SITE_REVIEW_QUEUE, 500);
    const sites = await ctx.svc.configStore.readMany<StoredSite>('site', ids);
    return { sites: sites.filter((s) => s.status === 'pending_review').map((s) => siteOut(ctx.svc, s)) };
  }),
  approveSite: admin
    .input(byId)
    .output(siteSchema)
    .mutation(({ ctx, input }) =>
      decide(ctx, input.id, { status: 'approved' }, [{ cmd: 'SADD', key: APPROVED_SITES, member: input.id }]),
    ),
  rejectSite: admin
    .input(reasonInputSchema)
    .output(siteSchema)
    .mutation(({ ctx, input }) => decide(ctx, input.id, { status: 'rejected', rejection_reason: input.reason })),
});
