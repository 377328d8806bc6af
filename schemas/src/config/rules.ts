import { z } from 'zod';

/** Advertisers' automated rules (docs/rules.md). */
export const rulesSlice = z
  .object({
    /**
     * How often the admin evaluates every campaign's automated rules against its statistics. Any number of
     * admin processes may run it: each campaign is evaluated by one at a time, and a rule acts on a target
     * once per window whichever process sees it.
     */
    RULES_INTERVAL_MS: z.coerce.number().int().min(1_000).max(86_400_000).default(300_000),
    /** How long one admin process holds a campaign while it evaluates its rules; another waits past it for a crashed one. */
    RULES_LEASE_MS: z.coerce.number().int().min(1_000).max(3_600_000).default(60_000),
  })
  .transform((e) => ({ intervalMs: e.RULES_INTERVAL_MS, leaseMs: e.RULES_LEASE_MS }));
export type RulesConfig = z.output<typeof rulesSlice>;
