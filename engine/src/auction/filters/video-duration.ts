import { videoDurationOf } from '@adnet/schemas/api';
import type { CandidateFilter } from '../filter.ts';

/** A video creative bids only when its length (`duration_s`, else the default) is within the imp's `minduration`/`maxduration`. */
export const videoDurationFilter: CandidateFilter = {
  name: 'video_duration',
  scope: 'candidate',
  reject: (c, imp) => {
    if (imp.minDuration === undefined && imp.maxDuration === undefined) return false;
    if (c.format !== 'video' && c.format !== 'floating_video') return false;
    const d = videoDurationOf(c.creative);
    return (
      (imp.minDuration !== undefined && d < imp.minDuration) || (imp.maxDuration !== undefined && d > imp.maxDuration)
    );
  },
};
