import { idSchema } from '@adnet/schemas/api';
import { zoneCreateInputSchema, zoneFieldErrors, zoneSchema, zoneUpdateInputSchema } from '@adnet/schemas/publisher';
import type { StoredZone } from '@adnet/schemas/publisher';
import { splitControls } from '@adnet/schemas/publisher-controls';
import { DEFAULT_PUSH_PROMPT } from '@adnet/schemas/push';
import { randomInt } from 'node:crypto';
import { z } from 'zod';
import { AppError, fieldErrors, notFound } from '../../errors.ts';
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

const publisher = roleProcedure('publisher');
const byId = z.object({ id: idSchema });
const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** 12 base62 characters from the CSPRNG: ~71 bits, short, URL-safe, not guessable. */
function newSubid(): string {
  let s = '';
  for (let i = 0; i < 12; i++) s += ALPHABET[randomInt(ALPHABET.length)];
  return s;
}

async function setZoneStatus(ctx: AuthedContext, id: number, status: StoredZone['status']) {
  await loadOwnedZone(ctx.svc, ctx.session.userId, id);
  const zone = await ctx.svc.configStore.update<StoredZone>(
    'zone',
    id,
    (z) => ({ value: { ...z, status, updated_at: new Date().toISOString() } }),
    () => notFound('Zone'),
  );
  return zoneOut(ctx.svc, zone);
}

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
      await loadOwnedZone(ctx.svc, ctx.session.userId, input.id);
      const { controls, rest } = splitControls(input);
      const { id, ...fields } = rest;
      const zone = await ctx.svc.configStore.update<StoredZone>(
        'zone',
        id,
        (z) => {
          const next: StoredZone = { ...z, ...controls, updated_at: new Date().toISOString() };
          for (const [k, v] of Object.entries(fields)) if (v !== undefined) (next as Record<string, unknown>)[k] = v;
          const errors = zoneFieldErrors({
            format: next.format,
            fv_corner: next.fv_corner ?? undefined,
            fv_delay_sec: next.fv_delay_sec ?? undefined,
            fv_freq_cap_hours: next.fv_freq_cap_hours ?? undefined,
            banner_width: next.banner_width ?? undefined,
            banner_height: next.banner_height ?? undefined,
            ...(fields.push_prompt !== undefined ? { push_prompt: fields.push_prompt } : {}),
          });
          if (Object.keys(errors).length) throw fieldErrors(errors);
          return { value: next };
        },
        () => notFound('Zone'),
      );
      return zoneOut(ctx.svc, zone);
    }),

  pause: publisher
    .input(byId)
    .output(zoneSchema)
    .mutation(({ ctx, input }) => setZoneStatus(ctx, input.id, 'paused')),
  resume: publisher
    .input(byId)
    .output(zoneSchema)
    .mutation(({ ctx, input }) => setZoneStatus(ctx, input.id, 'active')),
});
