// The choices the cabinet's forms offer, taken from the schemas the API validates with, so a value added,
// renamed or removed there shows here without a second list to keep in step. (zod is in the bundle anyway,
// through the demand and push schemas; the build tree-shakes what these modules hold beside the lists.)
import {
  BANNER_SIZES as BANNER_DIMENSIONS,
  BID_TYPES,
  BROWSER_FAMILIES,
  CAMPAIGN_FORMATS,
  CONNECTION_TYPES,
  DEVICE_TARGETS,
  ORIENTATIONS,
  OS_FAMILIES,
  PACINGS,
  POSTBACK_MACROS,
  ROTATIONS,
  VERTICALS,
} from '@adnet/schemas/api';
import { FALLBACK_TYPES as FALLBACKS, FV_CORNERS, POP_TRIGGERS } from '@adnet/schemas/formats';
import { SITE_CATEGORY_NAMES } from '@adnet/schemas/site-categories';
import { WEEKDAYS } from '@adnet/schemas/schedule';
import {
  PUBLISHER_STATS_DIMENSIONS,
  STATS_DIMENSION_COLUMNS,
  STATS_DIMENSIONS as ALL_DIMENSIONS,
} from '@adnet/schemas/stats';

export {
  BID_TYPES,
  CONNECTION_TYPES as CONNECTIONS,
  DEVICE_TARGETS as DEVICES,
  FV_CORNERS,
  POP_TRIGGERS,
  ORIENTATIONS,
  PACINGS,
  POSTBACK_MACROS,
  ROTATIONS,
  VERTICALS,
  WEEKDAYS,
};
export {
  BROWSER_FAMILIES as BROWSERS,
  CAMPAIGN_FORMATS as FORMATS,
  CAMPAIGN_FORMATS as ZONE_FORMATS,
  OS_FAMILIES as OSES,
};
export const SITE_CATEGORIES = SITE_CATEGORY_NAMES;
export const BANNER_SIZES = BANNER_DIMENSIONS.map(([w, h]) => `${w}x${h}`);
/** Advertisers' dimensions; admins add `demand` (who bought: our campaigns or a demand partner). */
export const STATS_DIMENSIONS = ALL_DIMENSIONS.filter(
  (d): d is Exclude<(typeof ALL_DIMENSIONS)[number], 'demand'> => d !== 'demand',
);
export const ADMIN_STATS_DIMENSIONS = ALL_DIMENSIONS;
export { PUBLISHER_STATS_DIMENSIONS, STATS_DIMENSION_COLUMNS };
/** `none` first: the form's default. */
export const FALLBACK_TYPES: readonly (typeof FALLBACKS)[number][] = ['none', ...FALLBACKS.filter((t) => t !== 'none')];
