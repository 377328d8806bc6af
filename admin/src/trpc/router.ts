import { createCallerFactory, mergeRouters, router } from './init.ts';
import { balanceRouter, profileRouter } from './routers/account.ts';
import { adminRouter } from './routers/admin.ts';
import { authRouter } from './routers/auth.ts';
import { campaignsRouter } from './routers/campaigns.ts';
import { creativesRouter } from './routers/creatives.ts';
import { partnersRouter } from './routers/partners.ts';

/** The admin API. REST paths (http/rest-routes.ts) call these same procedures. */
export const appRouter = router({
  auth: authRouter,
  adv: router({
    campaigns: campaignsRouter,
    creatives: creativesRouter,
    balance: balanceRouter,
    profile: profileRouter,
  }),
  // Each feature area adds its own admin procedures as one more router here.
  admin: mergeRouters(adminRouter, partnersRouter),
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
