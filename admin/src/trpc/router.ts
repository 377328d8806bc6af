import { createCallerFactory, mergeRouters, router } from './init.ts';
import { balanceRouter, profileRouter } from './routers/account.ts';
import { sellerRouter } from './routers/seller.ts';
import { adminRouter } from './routers/admin.ts';
import { adminDirectoryRouter } from './routers/admin-directory.ts';
import { aiRouter } from './routers/ai.ts';
import { authRouter } from './routers/auth.ts';
import { audiencesRouter } from './routers/audiences.ts';
import { campaignsRouter } from './routers/campaigns.ts';
import { conversionsRouter, incomingConversionsRouter } from './routers/conversions.ts';
import { creativesRouter } from './routers/creatives.ts';
import { estimateRouter } from './routers/estimate.ts';
import { partnersRouter } from './routers/partners.ts';
import { dealsRouter } from './routers/deals.ts';
import { demandPartnersRouter } from './routers/demand-partners.ts';
import { adminSitesRouter, sitesRouter } from './routers/sites.ts';
import { adminStatsRouter, advStatsRouter, pubStatsRouter, statsFreshnessRouter } from './routers/stats.ts';
import { zonesRouter } from './routers/zones.ts';
import { videoRouter } from './routers/video.ts';
import { adminBillingRouter, depositsRouter, pubPayoutsRouter, statementsRouter } from './routers/billing.ts';
import { keysRouter } from './routers/keys.ts';
import { notificationsRouter } from './routers/notifications.ts';
import { rulesRouter } from './routers/rules.ts';

/** The admin API. REST paths (http/rest-routes.ts) call these same procedures. */
export const appRouter = router({
  auth: authRouter,
  adv: router({
    campaigns: campaignsRouter,
    audiences: audiencesRouter,
    creatives: creativesRouter,
    balance: balanceRouter,
    profile: profileRouter,
    stats: advStatsRouter,
    conversions: conversionsRouter,
    ai: aiRouter,
    video: videoRouter,
    deposits: depositsRouter,
    statements: statementsRouter,
    notifications: notificationsRouter,
    rules: rulesRouter,
    estimate: estimateRouter,
  }),
  // Each feature area adds its own admin procedures as one more router here.
  pub: router({
    sites: sitesRouter,
    zones: zonesRouter,
    stats: pubStatsRouter,
    payouts: pubPayoutsRouter,
    seller: sellerRouter,
  }),
  admin: mergeRouters(
    adminRouter,
    partnersRouter,
    adminStatsRouter,
    adminSitesRouter,
    dealsRouter,
    demandPartnersRouter,
    adminBillingRouter,
    adminDirectoryRouter,
  ),
  conversions: incomingConversionsRouter,
  keys: keysRouter,
  stats: statsFreshnessRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
