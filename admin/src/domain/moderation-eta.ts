/** Seconds until a new creative is likely reviewed: a base plus a share per creative ahead of it, capped at two days. */
export function moderationEtaSeconds(queueAhead: number, baseSeconds: number, perItemSeconds: number): number {
  return Math.min(baseSeconds + Math.max(0, queueAhead) * perItemSeconds, 2 * 86_400);
}
