import { idSchema } from '@adnet/schemas/api';
import {
  adminPayoutListInputSchema,
  adminPayoutListSchema,
  adminDepositListSchema,
  adminRefundInputSchema,
  advStatementSchema,
  depositInputSchema,
  depositInputSchemaFor,
  depositLimitsSchema,
  depositListSchema,
  depositSchema,
  payoutHoldInputSchema,
  payoutListSchema,
  payoutPaidInputSchema,
  payoutSchema,
  payoutSettingsInputSchema,
  payoutSettingsSchema,
  pubBalanceSchema,
  pubStatementSchema,
  statementInputSchema,
} from '@adnet/schemas/billing';
import type { AdvStatement, PayoutSettings } from '@adnet/schemas/billing';
import { csvTable } from '@adnet/schemas/csv';
import { NANO_USD_PER_CENT, usdToCents } from '@adnet/schemas/money';
import { z } from 'zod';
import { monthRange } from '../../domain/payout-days.ts';
import { AppError, forbidden, notFound } from '../../errors.ts';
import { listCampaigns } from '../../repos/campaigns.ts';
import { receiptNumber, toDeposit } from '../../payments/deposit-store.ts';
import type { DepositRecord } from '../../payments/deposit-store.ts';
import { receiptHtml } from '../../payments/html.ts';
import { runPayoutClose } from '../../payments/payout-close.ts';
import { PaymentProviderError } from '../../payments/providers.ts';
import type { MoveOutcome } from '../../payments/payout-store.ts';
import type { AuthedContext } from '../init.ts';
import { configuredInput, roleProcedure, router } from '../init.ts';

const advertiser = roleProcedure('advertiser');
const publisher = roleProcedure('publisher');
const admin = roleProcedure('admin');

const usdText = (cents: number): string => (cents / 100).toFixed(2);

async function ownedDeposit(ctx: AuthedContext, id: number): Promise<DepositRecord> {
  const dep = await ctx.svc.deposits.get(id);
  if (!dep) throw notFound('Deposit');
  if (dep.advertiserId !== ctx.session.userId) throw forbidden();
  return dep;
}

/** Ledger entries of an advertiser between two instants. */
const advLedgerBetween = (ctx: AuthedContext, fromMs: number, toMs: number) =>
  ctx.svc.ledger.between(ctx.session.userId, fromMs, toMs);

export const depositsRouter = router({
  /** The bounds `create` enforces, so the form states them before anyone types. */
  limits: advertiser.output(depositLimitsSchema).query(({ ctx }) => ({
    min_cents: ctx.svc.config.billing.depositMinCents,
    max_cents: ctx.svc.config.billing.depositMaxCents,
  })),

  create: advertiser
    // The configured bounds (DEPOSIT_MIN_USD, DEPOSIT_MAX_USD) in the same pass as the rest of the input.
    .use(
      configuredInput((config) =>
        depositInputSchemaFor({ minCents: config.billing.depositMinCents, maxCents: config.billing.depositMaxCents }),
      ),
    )
    .input(depositInputSchema)
    .output(depositSchema)
    .mutation(async ({ ctx, input }) => {
      const cents = usdToCents(input.amount_usd);
      // Each deposit opens a session at the provider: a few a minute is plenty for a person.
      const rate = await ctx.svc.limiter.take(`deposit:${ctx.session.userId}`, 10, 60_000);
      if (!rate.allowed)
        throw new AppError('rate_limited', 'At most 10 deposits a minute', {
          retryAfterSeconds: rate.retryAfterSeconds,
        });
      const id = await ctx.svc.deposits.nextId();
      let checkout;
      try {
        checkout = await ctx.svc.paymentProvider.createCheckout({
          depositId: id,
          advertiserId: ctx.session.userId,
          amountCents: cents,
        });
      } catch (err) {
        if (!(err instanceof PaymentProviderError)) throw err;
        ctx.svc.log.warn(
          { event: 'deposit.provider_failed', depositId: id, err: err.message },
          'payment provider failed',
        );
        throw new AppError('bad_gateway', 'The payment provider is not available; try again');
      }
      await ctx.svc.deposits.create({
        id,
        advertiserId: ctx.session.userId,
        amountCents: cents,
        provider: ctx.svc.paymentProvider.name,
        checkoutUrl: checkout.url,
        providerSession: checkout.session,
      });
      ctx.svc.log.info(
        { event: 'deposit.created', depositId: id, advertiserId: ctx.session.userId, cents },
        'deposit created',
      );
      return toDeposit((await ctx.svc.deposits.get(id)) as DepositRecord);
    }),

  list: advertiser
    .input(z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).optional())
    .output(depositListSchema)
    .query(async ({ ctx, input }) => ({
      deposits: (await ctx.svc.deposits.list(ctx.session.userId, input?.limit ?? 100)).map(toDeposit),
    })),

  get: advertiser
    .input(z.object({ id: idSchema }))
    .output(depositSchema)
    .query(async ({ ctx, input }) => toDeposit(await ownedDeposit(ctx, input.id))),

  receipt: advertiser
    .input(z.object({ id: idSchema }))
    .output(z.object({ number: z.string(), html: z.string() }))
    .query(async ({ ctx, input }) => {
      const dep = await ownedDeposit(ctx, input.id);
      if (dep.receiptNo === null)
        throw new AppError('conflict', `Deposit is ${dep.status}: a receipt is issued once it is paid`);
      const user = await ctx.svc.users.get(dep.advertiserId);
      const number = receiptNumber(dep.advertiserId, dep.receiptNo);
      const html = receiptHtml({
        number,
        depositId: dep.id,
        issuedAt: dep.paidAt ?? dep.createdAt,
        advertiserEmail: user?.email ?? '',
        advertiserId: dep.advertiserId,
        amountCents: dep.amountCents,
        refundedCents: dep.refundedCents,
        provider: dep.provider,
        paymentRef: dep.provider === 'stripe' ? dep.paymentRef : '',
        issuer: new URL(ctx.svc.config.server.baseUrl).host,
      });
      return { number, html };
    }),
});

export const statementsRouter = router({
  /** Spend per campaign from the statistics (the same table and rounding as GET /api/adv/stats with tz=UTC). */
  get: advertiser
    .input(statementInputSchema)
    .output(advStatementSchema)
    .query(async ({ ctx, input }) => {
      const ch = ctx.svc.clickhouse;
      if (!ch) throw new AppError('unavailable', 'Statistics are not available in this process');
      const range = monthRange(input.month);
      const raw = await (
        await ch.query({
          query: `SELECT campaign_id, sum(impressions) AS impressions, sum(clicks) AS clicks, sum(conversions) AS conversions, sum(spent_nano) AS spent_nano
                  FROM ${ctx.svc.config.stats.database}.stats_hourly
                  WHERE advertiser_id = {adv:UInt32} AND toDate(hour) BETWEEN {from:Date} AND {to:Date}
                  GROUP BY campaign_id ORDER BY campaign_id`,
          query_params: { adv: ctx.session.userId, from: range.from, to: range.to },
          format: 'JSONEachRow',
        })
      ).json<Record<string, string | number>>();
      const names = new Map((await listCampaigns(ctx.svc, ctx.session.userId)).map((c) => [c.id, c.name]));
      const campaigns = raw.map((r) => ({
        campaign_id: Number(r.campaign_id),
        name: names.get(Number(r.campaign_id)) ?? '',
        impressions: Number(r.impressions),
        clicks: Number(r.clicks),
        conversions: Number(r.conversions),
        spent_cents: Math.floor(Number(r.spent_nano) / NANO_USD_PER_CENT),
      }));
      const entries = await advLedgerBetween(ctx, range.fromMs, range.toMs);
      const statement: AdvStatement = {
        month: input.month,
        from: range.from,
        to: range.to,
        campaigns,
        total_spent_cents: campaigns.reduce((s, c) => s + c.spent_cents, 0),
        deposits_cents: entries.filter((e) => e.reason.startsWith('deposit #')).reduce((s, e) => s + e.amount, 0),
        refunds_cents: -entries
          .filter((e) => e.reason.startsWith('refund of deposit #'))
          .reduce((s, e) => s + e.amount, 0),
      };
      if (input.format !== 'csv') return statement;
      const csv = csvTable(['campaign_id', 'name', 'impressions', 'clicks', 'conversions', 'spent_usd'] as const, [
        ...campaigns.map((c) => ({ ...c, spent_usd: usdText(c.spent_cents) })),
        { campaign_id: '', name: 'Total', spent_usd: usdText(statement.total_spent_cents) },
      ]);
      return { ...statement, csv };
    }),
});

const settingsOf = (input: z.infer<typeof payoutSettingsInputSchema>): PayoutSettings => ({
  method: input.method,
  details: Object.fromEntries(
    Object.entries(input.details).filter((e): e is [string, string] => typeof e[1] === 'string'),
  ),
  threshold_cents: usdToCents(input.threshold_usd),
  updated_at: new Date().toISOString(),
});

export const pubPayoutsRouter = router({
  balance: publisher
    .input(z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }).optional())
    .output(pubBalanceSchema)
    .query(async ({ ctx, input }) => {
      const pub = ctx.session.userId;
      const p = ctx.svc.payouts;
      const [balance, inPayouts, closedThrough, settings, ledger] = await Promise.all([
        p.balance(pub),
        p.inPayouts(pub),
        p.closedThrough(),
        p.settings(pub),
        p.entries(pub, input?.limit ?? 100),
      ]);
      return {
        balance_cents: balance,
        in_payouts_cents: inPayouts,
        closed_through: closedThrough,
        hold_days: ctx.svc.config.billing.payoutHoldDays,
        settings,
        ledger,
      };
    }),

  setSettings: publisher
    .input(payoutSettingsInputSchema)
    .output(payoutSettingsSchema)
    .mutation(async ({ ctx, input }) => {
      const settings = settingsOf(input);
      await ctx.svc.payouts.setSettings(ctx.session.userId, settings);
      // The details themselves stay out of the log.
      ctx.svc.log.info(
        { event: 'payout_settings.updated', publisherId: ctx.session.userId, method: settings.method },
        'payout settings updated',
      );
      return settings;
    }),

  list: publisher
    .input(z.object({ limit: z.coerce.number().int().min(1).max(500).default(100) }).optional())
    .output(payoutListSchema)
    .query(async ({ ctx, input }) => ({
      payouts: await ctx.svc.payouts.ofPublisher(ctx.session.userId, input?.limit ?? 100),
    })),

  statement: publisher
    .input(statementInputSchema)
    .output(pubStatementSchema)
    .query(async ({ ctx, input }) => {
      const range = monthRange(input.month);
      const { opening, entries } = await ctx.svc.payouts.ledgerBetween(ctx.session.userId, range.fromMs, range.toMs);
      const sum = (kind: string) => entries.filter((e) => e.kind === kind).reduce((s, e) => s + e.amount_cents, 0);
      const statement = {
        month: input.month,
        opening_balance_cents: opening,
        closing_balance_cents: entries.at(-1)?.balance_after_cents ?? opening,
        earnings_cents: sum('earnings'),
        adjustments_cents: sum('adjustment'),
        payouts_cents: -sum('payout'),
        entries,
      };
      if (input.format !== 'csv') return statement;
      const csv = csvTable(
        ['created_at', 'kind', 'ref', 'amount_usd', 'balance_after_usd'] as const,
        entries.map((e) => ({
          created_at: e.created_at,
          kind: e.kind,
          ref: e.ref,
          amount_usd: usdText(e.amount_cents),
          balance_after_usd: usdText(e.balance_after_cents),
        })),
      );
      return { ...statement, csv };
    }),
});

function moved(r: MoveOutcome) {
  if (r.ok) return r.payout;
  if (r.reason === 'not_found') throw notFound('Payout');
  throw new AppError('illegal_transition', `Payout is already ${r.status ?? 'closed'}`);
}

export const adminBillingRouter = router({
  listPayouts: admin
    .input(adminPayoutListInputSchema.optional())
    .output(adminPayoutListSchema)
    .query(async ({ ctx, input }) => {
      const payouts = await ctx.svc.payouts.byStatus(input?.status, input?.limit ?? 100);
      // One read per publisher, not per payout: a queue holds many payouts of few publishers.
      const ids = [...new Set(payouts.map((p) => p.publisher_id))];
      const users = await Promise.all(ids.map((id) => ctx.svc.users.get(id)));
      const emails = new Map(ids.map((id, i) => [id, users[i]?.email ?? '']));
      return { payouts: payouts.map((p) => ({ ...p, publisher_email: emails.get(p.publisher_id) ?? '' })) };
    }),

  payoutPaid: admin
    .input(payoutPaidInputSchema)
    .output(payoutSchema)
    .mutation(async ({ ctx, input }) => {
      const payout = moved(await ctx.svc.payouts.markPaid(input.id, input.reference));
      ctx.svc.log.info(
        {
          event: 'payout.paid',
          payoutId: payout.id,
          publisherId: payout.publisher_id,
          cents: payout.amount_cents,
          by: ctx.session.userId,
        },
        'payout paid',
      );
      // Queued after the payment is stored; the notifier never throws, so a mail problem cannot undo it.
      await ctx.svc.notifier.notify({
        kind: 'payout_paid',
        user_id: payout.publisher_id,
        payout_id: payout.id,
        amount_cents: payout.amount_cents,
        reference: payout.reference ?? input.reference,
      });
      return payout;
    }),

  payoutHold: admin
    .input(payoutHoldInputSchema)
    .output(payoutSchema)
    .mutation(async ({ ctx, input }) => {
      const payout = moved(await ctx.svc.payouts.hold(input.id, input.reason));
      ctx.svc.log.info({ event: 'payout.held', payoutId: payout.id, by: ctx.session.userId }, 'payout held');
      return payout;
    }),

  /** Runs the daily close now (it also runs on its own every PAYOUT_CLOSE_INTERVAL_MS); idempotent. */
  closePayouts: admin
    .output(
      z.object({
        from: z.string(),
        to: z.string(),
        closed: z.number().int(),
        adjusted: z.number().int(),
        payoutsDue: z.number().int(),
      }),
    )
    .mutation(({ ctx }) => runPayoutClose(ctx.svc)),

  listDeposits: admin
    .input(z.object({ advertiser_id: idSchema, limit: z.coerce.number().int().min(1).max(500).default(100) }))
    .output(adminDepositListSchema)
    .query(async ({ ctx, input }) => {
      const [user, deposits] = await Promise.all([
        ctx.svc.users.get(input.advertiser_id),
        ctx.svc.deposits.list(input.advertiser_id, input.limit),
      ]);
      if (user?.role !== 'advertiser') throw notFound('Advertiser');
      return { advertiser_email: user.email, deposits: deposits.map(toDeposit) };
    }),

  /** Gives a paid deposit back: at the provider first, then the balance (which may go below zero). */
  refundDeposit: admin
    .input(adminRefundInputSchema)
    .output(depositSchema)
    .mutation(async ({ ctx, input }) => {
      const dep = await ctx.svc.deposits.get(input.id);
      if (!dep) throw notFound('Deposit');
      if (dep.status !== 'paid')
        throw new AppError('illegal_transition', `Deposit is ${dep.status}: only a paid deposit is refunded`);
      try {
        await ctx.svc.paymentProvider.refund({
          depositId: dep.id,
          paymentRef: dep.paymentRef,
          amountCents: dep.amountCents,
        });
      } catch (err) {
        if (!(err instanceof PaymentProviderError)) throw err;
        throw new AppError('bad_gateway', 'The payment provider refused the refund; nothing changed');
      }
      // The provider's refund notice comes later and finds this already done (refunds are cumulative).
      const taken = await ctx.svc.deposits.refundTo(dep.id, dep.amountCents);
      ctx.svc.log.info(
        { event: 'deposit.refunded', depositId: dep.id, cents: taken, by: ctx.session.userId, reason: input.reason },
        'deposit refunded',
      );
      return toDeposit((await ctx.svc.deposits.get(dep.id)) as DepositRecord);
    }),
});
