// Apart from publisher.ts so that the cabinet's forms can offer the categories without the site schemas' imports.

/** The 29 site categories, each with the IAB content category (taxonomy 1.0) it is reported as in OpenRTB `site.cat`. */
export const SITE_CATEGORIES = {
  arts_entertainment: 'IAB1',
  automotive: 'IAB2',
  business: 'IAB3',
  careers: 'IAB4',
  education: 'IAB5',
  family_parenting: 'IAB6',
  health_fitness: 'IAB7',
  food_drink: 'IAB8',
  hobbies_interests: 'IAB9',
  home_garden: 'IAB10',
  law_government_politics: 'IAB11',
  news: 'IAB12',
  personal_finance: 'IAB13',
  society: 'IAB14',
  science: 'IAB15',
  pets: 'IAB16',
  sports: 'IAB17',
  style_fashion: 'IAB18',
  technology_computing: 'IAB19',
  travel: 'IAB20',
  real_estate: 'IAB21',
  shopping: 'IAB22',
  religion_spirituality: 'IAB23',
  uncategorized: 'IAB24',
  adult: 'IAB25',
  gaming: 'IAB9-30',
  streaming_video: 'IAB1-7',
  music_audio: 'IAB1-6',
  file_sharing_tools: 'IAB19-18',
} as const;
export type SiteCategory = keyof typeof SITE_CATEGORIES;
export const SITE_CATEGORY_NAMES = Object.keys(SITE_CATEGORIES) as [SiteCategory, ...SiteCategory[]];
