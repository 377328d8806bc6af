import { postbackFailureReasonSchema, postbackInputSchema, postbackReceiptSchema } from '@adnet/schemas/api';
import type { PostbackInput } from '@adnet/schemas/api';
import { z } from 'zod';
import { receivePostback } from '../../postback/postback-in.ts';
import { attemptForClient } from '../../postback/tracker-call.ts';
import { publicProcedure, roleProcedure, router } from '../init.ts';
import type { Context } from '../init.ts';

const attempt = z.object({
  at: z.string(),
  attempt: z.number().int(),
  status: z.number().int().nullable(),
  /** Why it failed (null on success): one of postbackFailureReasonSchema. */
  reason: postbackFailureReasonSchema.nullable(),
  error: z.string().nullable(),
});
const conversion = z.object({
  id: z.number().int(),
  click_id: z.string(),
  txid: z.string(),
  payout_cents: z.number().int(),
  status: z.enum(['pending', 'approved', 'rejected']),
  postback_failed: z.boolean(),
  campaign_id: z.number().int(),
  creative_id: z.number().int(),
  country: z.string(),
  device: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  attempts: z.array(attempt),
});

export const conversionsRouter = router({
  /** Own conversions, newest first, each with its outgoing-postback attempts. */
  list: roleProcedure('advertiser')
    .output(z.object({ conversions: z.array(conversion) }))
    .query(async ({ ctx }) => ({
      conversions: (await ctx.svc.conversions.list(ctx.session.userId)).map((c) => ({
        ...c,
        attempts: c.attempts.map(attemptForClient),
      })),
    })),
});

// No bearer token: the postback secret names the advertiser and the signature proves the fields.
const receiving = publicProcedure.input(postbackInputSchema).output(postbackReceiptSchema);
const receive = ({ ctx, input }: { ctx: Context; input: PostbackInput }) =>
  receivePostback(ctx.svc, ctx.svc.conversions, input);

/** Conversions reported by advertisers' trackers (POST or GET /postback/in). */
export const incomingConversionsRouter = router({
  receive: receiving.mutation(receive),
  /** The same report as a query: many trackers can only call a URL with GET. */
  receiveGet: receiving.query(receive),
});
