/**
 * How long a new creative waits for review, in the words every surface uses (the cabinet's checklist, its notices, the
 * emails): one estimate (the admin's MODERATION_ETA_* settings and the queue), one wording, so no two texts disagree.
 */
export function moderationWaitText(seconds: number): string {
  const minutes = Math.max(1, Math.ceil(seconds / 60));
  if (minutes < 60) return `about ${minutes} minute${minutes === 1 ? '' : 's'}`;
  const hours = Math.round(minutes / 60);
  return `about ${hours} hour${hours === 1 ? '' : 's'}`;
}
