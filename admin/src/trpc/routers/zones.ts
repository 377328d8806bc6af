import { idSchema } from '@adnet/schemas/api';
import {
  DEFAULT_AD_LABEL,
  interstitialSettingsOf,
  popSettingsOf,
  previewTokenSchema,
  zoneCreateInputSchema,
  zoneFieldErrors,
  zoneSchema,
  zoneUpdateInputSchema,
} from '@adnet/schemas/publisher';
import type { StoredZone } from '@adnet/schemas/publisher';
import { splitControls } from '@adnet/schemas/publisher-controls';
import { DEFAULT_PUSH_PROMPT } from '@adnet/schemas/push';
import { PREVIEW_TTL_SECONDS, previewKey } from '@adnet/schemas/redis-keys';
import { randomBytes, randomInt } from 'node:crypto';
import { z } from 'zod';
import { AppError, fieldErrors } from '../../errors.ts';
import { definedFields, setEntityStatus, updateEntity } from '../../repos/owned-entity.ts';
import {
  SUBIDS,
  listOwned,
  loadOwnedSite,
  loadOwnedZone,
  publisherZonesIndex,
  zoneOut,
} from '../../repos/publisher.ts';
import type { AuthedContext } from '../init.ts';
import { roleProcedure, router } from '../init.ts';
import { statusPair } from '../status-pair.ts';

const publisher = roleProcedure('publisher');
const byId = z.object({ id: idSchema });
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 12 base62 characters from the CSPRNG: ~71 bits, short, URL-safe, not guessable. */
function newSubid(): string {
  let s = '';
  for (let i = 0; i < 12; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

const zoneRef = (ctx: AuthedContext, id: number) =>
  ({ kind: 'zone', id, label: 'Zone', owner: ctx.session.userId }) as const;

const status = statusPair(
  publisher,
  zoneSchema,
  async (ctx, id, status: StoredZone['status']) =>
    zoneOut(ctx.svc, await setEntityStatus<StoredZone>(ctx.svc.configStore, zoneRef(ctx, id), status)),
  { off: 'paused', on: 'active' },
);

export const zonesRouter = router({
  create: publisher
    .input(zoneCreateInputSchema)
    .output(zoneSchema)
    .mutation(async ({ ctx, input }) => {
      // A zone may be created on a site still in review: it serves nothing until the site is approved.
      const site = await loadOwnedSite(ctx.svc, ctx.session.userId, input.site_id);
      const id = await ctx.svc.configStore.nextId('zone');
      let subid = newSubid();
      for (let i = 0; !(await ctx.svc.configStore.claim({ key: SUBIDS, field: subid }, id)); i++) {
        if (i > 5) throw new AppError('internal', 'Could not allocate a zone id');
        subid = newSubid();
      }
      const now = new Date().toISOString();
      const zone: StoredZone = {
        id,
        site_id: site.id,
        publisher_id: ctx.session.userId,
        subid,
        name: input.name,
        format: input.format,
        fv_corner: input.fv_corner ?? null,
        fv_delay_sec: input.fv_delay_sec ?? null,
        fv_freq_cap_hours: input.fv_freq_cap_hours ?? null,
        banner_width: input.banner_width ?? null,
        banner_height: input.banner_height ?? null,
        push_prompt: input.format === 'push' ? (input.push_prompt ?? DEFAULT_PUSH_PROMPT) : null,
        ...popSettingsOf(input.format, input),
        ...interstitialSettingsOf(input.format, input),
        ad_label: input.ad_label ?? DEFAULT_AD_LABEL,
        status: 'active',
        created_at: now,
        updated_at: now,
        ...splitControls(input).controls,
      };
      await ctx.svc.configStore.commit('zone', id, {
        expectedRev: 0,
        value: zone,
        ops: [{ cmd: 'SADD', key: publisherZonesIndex(ctx.session.userId), member: id }],
      });
      return zoneOut(ctx.svc, zone);
    }),

  list: publisher.output(z.object({ zones: z.array(zoneSchema) })).query(async ({ ctx }) => ({
    zones: (await listOwned<StoredZone>(ctx.svc, 'zone', publisherZonesIndex(ctx.session.userId))).map((z) =>
      zoneOut(ctx.svc, z),
    ),
  })),

  get: publisher
    .input(byId)
    .output(zoneSchema)
    .query(async ({ ctx, input }) => zoneOut(ctx.svc, await loadOwnedZone(ctx.svc, ctx.session.userId, input.id))),

  update: publisher
    .input(zoneUpdateInputSchema)
    .output(zoneSchema)
    .mutation(async ({ ctx, input }) => {
      const { controls, rest } = splitControls(input);
      const { id, ...fields } = rest;
      const zone = await updateEntity<StoredZone>(ctx.svc.configStore, zoneRef(ctx, id), {
        patch: { ...definedFields<StoredZone>(fields), ...controls },
        check: (next) => {
          const errors = zoneFieldErrors({
            format: next.format,
            fv_corner: next.fv_corner ?? undefined,
            fv_delay_sec: next.fv_delay_sec ?? undefined,
            fv_freq_cap_hours: next.fv_freq_cap_hours ?? undefined,
            banner_width: next.banner_width ?? undefined,
            banner_height: next.banner_height ?? undefined,
            ...(fields.push_prompt !== undefined ? { push_prompt: fields.push_prompt } : {}),
            ...(fields.pop_freq_cap_hours !== undefined ? { pop_freq_cap_hours: fields.pop_freq_cap_hours } : {}),
            ...(fields.pop_trigger !== undefined ? { pop_trigger: fields.pop_trigger } : {}),
            ...(fields.pop_new_tab !== undefined ? { pop_new_tab: fields.pop_new_tab } : {}),
            ...(fields.interstitial_delay_sec !== undefined
              ? { interstitial_delay_sec: fields.interstitial_delay_sec }
              : {}),
            ...(fields.interstitial_close_after_sec !== undefined
              ? { interstitial_close_after_sec: fields.interstitial_close_after_sec }
              : {}),
            ...(fields.interstitial_freq_cap_hours !== undefined
              ? { interstitial_freq_cap_hours: fields.interstitial_freq_cap_hours }
              : {}),
          });
          if (Object.keys(errors).length) throw fieldErrors(errors);
        },
      });
      return zoneOut(ctx.svc, zone);
    }),

  pause: status.off,
  resume: status.on,

  /**
   * A token for the zone's live preview: the engine's GET /preview/<subid> serves it an ad that counts, holds and
   * charges nothing (docs/browser-endpoints.md). 128 random bits, kept 15 minutes; own zones only (404 otherwise).
   */
  preview: publisher
    .input(byId)
    .output(previewTokenSchema)
    .mutation(async ({ ctx, input }) => {
      const zone = await loadOwnedZone(ctx.svc, ctx.session.userId, input.id);
      const token = randomBytes(16).toString('base64url');
      await ctx.svc.redis.set(previewKey(token), zone.subid, 'EX', PREVIEW_TTL_SECONDS);
      return { token, expires_at: new Date(Date.now() + PREVIEW_TTL_SECONDS * 1000).toISOString() };
    }),
});
