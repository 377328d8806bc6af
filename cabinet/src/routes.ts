import { advertisersPage, moderationPage, partnersPage } from './pages/admin.ts';
import { audiencesPage } from './pages/audiences.ts';
import { campaignsPage } from './pages/campaign-list.ts';
import { campaignPage } from './pages/campaigns.ts';
import { editCampaignPage, newCampaignPage } from './pages/campaign-builder.ts';
import { dealsPage } from './pages/deals.ts';
import { demandPartnersPage } from './pages/demand.ts';
import { balancePage, conversionsPage } from './pages/money.ts';
import { advertiserDepositsPage, billingPage, payoutQueuePage, payoutsPage } from './pages/billing.ts';
import { overviewPage } from './pages/overview.ts';
import { profilePage } from './pages/profile.ts';
import { sitesPage, zonesPage } from './pages/publisher.ts';
import { statsPage } from './pages/stats.ts';
import type { Route } from './router.ts';
import { accountPage } from './pages/account.ts';

/** Every page of the cabinet; the order is the navigation's. */
export const ROUTES: Route[] = [
  {
    path: '/overview',
    title: 'Overview',
    roles: ['advertiser', 'publisher', 'admin'],
    nav: true,
    render: overviewPage,
  },
  { path: '/campaigns', title: 'Campaigns', roles: ['advertiser'], nav: true, render: campaignsPage },
  { path: '/campaigns/new', title: 'New campaign', roles: ['advertiser'], render: newCampaignPage },
  { path: '/campaigns/:id', title: 'Campaign', roles: ['advertiser'], render: campaignPage },
  { path: '/campaigns/:id/edit', title: 'Edit campaign', roles: ['advertiser'], render: editCampaignPage },
  { path: '/audiences', title: 'Audiences', roles: ['advertiser'], nav: true, render: audiencesPage },
  { path: '/stats', title: 'Statistics', roles: ['advertiser'], nav: true, render: statsPage },
  { path: '/conversions', title: 'Conversions', roles: ['advertiser'], nav: true, render: conversionsPage },
  { path: '/balance', title: 'Balance', roles: ['advertiser'], nav: true, render: balancePage },
  { path: '/billing', title: 'Billing', roles: ['advertiser'], nav: true, render: billingPage },
  { path: '/profile', title: 'Profile', roles: ['advertiser'], nav: true, render: profilePage },
  { path: '/sites', title: 'Sites', roles: ['publisher'], nav: true, render: sitesPage },
  { path: '/zones', title: 'Zones', roles: ['publisher'], nav: true, render: zonesPage },
  { path: '/earnings', title: 'Earnings', roles: ['publisher'], nav: true, render: statsPage },
  { path: '/payouts', title: 'Payouts', roles: ['publisher'], nav: true, render: payoutsPage },
  { path: '/moderation', title: 'Moderation', roles: ['admin'], nav: true, render: moderationPage },
  { path: '/partners', title: 'Partners', roles: ['admin'], nav: true, render: partnersPage },
  { path: '/deals', title: 'Deals', roles: ['admin'], nav: true, render: dealsPage },
  { path: '/demand-partners', title: 'Demand partners', roles: ['admin'], nav: true, render: demandPartnersPage },
  { path: '/statistics', title: 'Statistics', roles: ['admin'], nav: true, render: statsPage },
  { path: '/advertisers', title: 'Advertisers', roles: ['admin'], nav: true, render: advertisersPage },
  { path: '/payout-queue', title: 'Payouts', roles: ['admin'], nav: true, render: payoutQueuePage },
  { path: '/advertisers/:id/deposits', title: 'Deposits', roles: ['admin'], render: advertiserDepositsPage },
  { path: '/account', title: 'Account', roles: ['advertiser', 'publisher', 'admin'], nav: true, render: accountPage },
];
