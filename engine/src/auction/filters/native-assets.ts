import { fillsRequired } from '../../openrtb/native-request.ts';
import type { CandidateFilter } from '../filter.ts';

/** A native creative bids on an OpenRTB native impression only if it fills every asset the request marks required. */
export const nativeAssetsFilter: CandidateFilter = {
  name: 'native_assets',
  scope: 'candidate',
  reject: (c, imp) =>
    imp.nativeAssets !== undefined && c.format === 'native' && !fillsRequired(c.creative, imp.nativeAssets),
};
