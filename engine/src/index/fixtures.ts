import type { Creative, StoredCampaign } from '@adnet/schemas/api';

// Builders for unit tests and the benchmark's world: complete, valid objects with overridable fields.

export function campaignFixture(over: Partial<StoredCampaign> = {}): StoredCampaign {
  return {
    id: 1,
    advertiser_id: 1,
    name: 'c',
    vertical: 'ecommerce',
    format: 'banner',
    bid_type: 'cpm',
    bid_micro_cents: 150_000,
    status: 'active',
    daily_budget_cents: 10_000,
    geo_include: [],
    languages: [],
    device_types: [],
    rotation: 'optimize',
    pacing: 'even',
    total_budget_cents: null,
    os_include: [],
    browser_include: [],
    connection_types: [],
    frequency_cap: null,
    start_at: null,
    end_at: null,
    dayparting: null,
    timezone: 'UTC',
    created_at: '',
    updated_at: '',
    ...over,
  };
}

export function creativeFixture(over: Partial<Creative> = {}): Creative {
  return {
    id: 1,
    campaign_id: 1,
    advertiser_id: 1,
    format: 'banner',
    title: 'Title',
    body: 'Body',
    landing_url: 'https://shop.example.com/?c={click_id}',
    cta_text: null,
    image_url: 'https://cdn.example.com/a.png',
    image_width: 300,
    image_height: 250,
    video_url: null,
    orientation: null,
    weight: 100,
    status: 'approved',
    rejection_reason: null,
    tracking_token: 'tok',
    created_at: '',
    moderated_at: null,
    ...over,
  };
}
