/**
 * Daily budgets reset at midnight UTC. Engines and the admin derive the spend
 * counter's day from this one function so they always name the same key.
 */
export function budgetDay(nowMs: number): string {
  return new Date(nowMs).toISOString().slice(0, 10);
}
