import { BANNER_SIZES } from '@adnet/schemas/api';
import { INTERSTITIAL_SIZES } from '@adnet/schemas/formats';
import type { CampaignFormat, CreativeFields } from '@adnet/schemas/api';
import type { ImageInfo } from './image-probe.ts';

type Need = 'required' | 'optional' | 'forbidden';

interface FormatRule {
  title: Need;
  titleMax: number;
  body: Need;
  bodyMax: number;
  image: Need;
  video: Need;
  minImage?: readonly [number, number];
  exactSizes?: readonly (readonly [number, number])[];
  defaultOrientation?: 'vertical' | 'horizontal';
}

/** A push notification's creative, sent by the browser's push service or drawn in the page alike. */
const PUSH_RULE: FormatRule = {
  title: 'required',
  titleMax: 50,
  body: 'required',
  bodyMax: 120,
  image: 'required',
  video: 'forbidden',
  minImage: [64, 64],
};

/** A title and a body the ad may carry, at the lengths most formats allow. */
const OPTIONAL_TEXT = { title: 'optional', titleMax: 60, body: 'optional', bodyMax: 150 } as const;

/** A pop's creative is its landing page, opened whole: a name for the advertiser, nothing we draw. */
const POP_RULE: FormatRule = {
  title: 'optional',
  titleMax: 60,
  body: 'forbidden',
  bodyMax: 0,
  image: 'forbidden',
  video: 'forbidden',
};

/** What each campaign format asks of its creatives (the table in admin/docs/api.md). */
export const FORMAT_RULES: Record<CampaignFormat, FormatRule> = {
  native: {
    title: 'required',
    titleMax: 60,
    body: 'optional',
    bodyMax: 150,
    image: 'required',
    video: 'forbidden',
    minImage: [100, 100],
  },
  banner: {
    ...OPTIONAL_TEXT,
    image: 'required',
    video: 'forbidden',
    exactSizes: BANNER_SIZES,
  },
  push: PUSH_RULE,
  in_page_push: PUSH_RULE,
  video: {
    ...OPTIONAL_TEXT,
    image: 'forbidden',
    video: 'required',
    defaultOrientation: 'horizontal',
  },
  floating_video: {
    ...OPTIONAL_TEXT,
    image: 'forbidden',
    video: 'required',
    defaultOrientation: 'vertical',
  },
  popunder: POP_RULE,
  direct_link: POP_RULE,
  // A full-screen picture, a phone's or a tablet's either way up: drawn whole, never scaled into another shape.
  interstitial: {
    ...OPTIONAL_TEXT,
    image: 'required',
    video: 'forbidden',
    exactSizes: INTERSTITIAL_SIZES,
  },
};

export const MAX_IMAGE_SIDE = 4000;

export type ImageInput =
  { kind: 'none' } | { kind: 'unreadable' } | { kind: 'too_large'; maxBytes: number } | { kind: 'ok'; info: ImageInfo };

/** Field errors for a creative of `format`; empty when it is acceptable. */
export function checkCreative(
  format: CampaignFormat,
  fields: CreativeFields,
  image: ImageInput,
): Record<string, string> {
  const rule = FORMAT_RULES[format];
  const errors: Record<string, string> = {};
  const need = (name: 'title' | 'body', value: string | undefined, what: Need, max: number) => {
    if (what === 'required' && !value) errors[name] = `is required for ${format} creatives`;
    else if (what === 'forbidden' && value) errors[name] = `is not accepted for ${format} creatives`;
    else if (value && value.length > max) errors[name] = `must be at most ${max} characters for ${format} creatives`;
  };
  need('title', fields.title, rule.title, rule.titleMax);
  need('body', fields.body, rule.body, rule.bodyMax);

  if (rule.video === 'required' && !fields.video_url) errors.video_url = `is required for ${format} creatives`;
  if (rule.video === 'forbidden' && fields.video_url) errors.video_url = `is only accepted for video formats`;
  if (rule.video === 'forbidden' && fields.duration_s !== undefined)
    errors.duration_s = `is only accepted for video formats`;
  if (fields.orientation && !rule.defaultOrientation) errors.orientation = 'is only accepted for video formats';

  if (rule.image === 'forbidden') {
    if (image.kind !== 'none')
      errors.image =
        rule.video === 'forbidden'
          ? `is not accepted for ${format} creatives: the ad is its landing page (landing_url)`
          : `is not accepted for ${format} creatives; send video_url`;
    return errors;
  }
  switch (image.kind) {
    case 'none':
      if (rule.image === 'required') errors.image = `is required for ${format} creatives`;
      break;
    case 'unreadable':
      errors.image = 'must be a PNG, JPEG, GIF or WebP image (checked by content)';
      break;
    case 'too_large':
      errors.image = `must be at most ${image.maxBytes} bytes`;
      break;
    case 'ok': {
      const { width, height } = image.info;
      if (width > MAX_IMAGE_SIDE || height > MAX_IMAGE_SIDE)
        errors.image = `must be at most ${MAX_IMAGE_SIDE}x${MAX_IMAGE_SIDE} pixels`;
      else if (rule.exactSizes && !rule.exactSizes.some(([w, h]) => w === width && h === height)) {
        errors.image = `is ${width}x${height}; ${format} images must be one of ${rule.exactSizes.map(([w, h]) => `${w}x${h}`).join(', ')}`;
      } else if (rule.minImage && (width < rule.minImage[0] || height < rule.minImage[1])) {
        errors.image = `is ${width}x${height}; ${format} images must be at least ${rule.minImage[0]}x${rule.minImage[1]}`;
      }
    }
  }
  return errors;
}

export function defaultOrientation(format: CampaignFormat): 'vertical' | 'horizontal' | null {
  return FORMAT_RULES[format].defaultOrientation ?? null;
}
