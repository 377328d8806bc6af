import type { CampaignFormat, Creative, StoredCampaign } from '@adnet/schemas/api';
import { VERTICAL_IAB } from '@adnet/schemas/iab';

/**
 * Predicted click-through rate by format, used to rank CPC bids as eCPM
 * (bid x CTR x 1000). Industry-typical priors until per-creative click
 * statistics feed a smoothed estimate (the statistics issue).
 */
export const CTR_PRIOR: Record<CampaignFormat, number> = {
  native: 0.004,
  banner: 0.001,
  video: 0.008,
  floating_video: 0.005,
  push: 0.02,
  in_page_push: 0.01,
};

/** One creative of a live campaign, flattened for the hot path. All fields set in the constructor (stable shape). */
export class Candidate {
  readonly campaignId: number;
  readonly advertiserId: number;
  readonly creativeId: number;
  readonly format: CampaignFormat;
  readonly bidType: 'cpm' | 'cpc';
  readonly bidMicroCents: number;
  readonly dailyBudgetCents: number;
  readonly languages: ReadonlySet<string> | null;
  readonly devices: ReadonlySet<string> | null;
  readonly iabCats: readonly string[];
  readonly adomain: string;
  readonly ctr: number;
  /** Expected value per thousand impressions, in micro-cents. */
  readonly ecpmMicroCents: number;
  readonly creative: Creative;

  constructor(campaign: StoredCampaign, creative: Creative) {
    this.campaignId = campaign.id;
    this.advertiserId = campaign.advertiser_id;
    this.creativeId = creative.id;
    this.format = campaign.format;
    this.bidType = campaign.bid_type;
    this.bidMicroCents = campaign.bid_micro_cents;
    this.dailyBudgetCents = campaign.daily_budget_cents;
    this.languages = campaign.languages.length ? new Set(campaign.languages) : null;
    // Campaigns stored before device targeting existed have no list: no restriction.
    this.devices = campaign.device_types?.length ? new Set(campaign.device_types) : null;
    this.iabCats = VERTICAL_IAB[campaign.vertical];
    this.adomain = hostOf(creative.landing_url);
    this.ctr = CTR_PRIOR[campaign.format];
    this.ecpmMicroCents = campaign.bid_type === 'cpm' ? campaign.bid_micro_cents : Math.floor(campaign.bid_micro_cents * this.ctr * 1000);
    this.creative = creative;
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url.replaceAll('{click_id}', 'x')).hostname.replace(/^www\./, '');
  } catch {
    return '';
  }
}
