// The settings of `pnpm bench:soak`, from its environment: checked before anything starts, so a typo
// fails in a second with the variable named, not half an hour later.
import { z } from 'zod';

/** What one action of the load does (run-soak.ts): an OpenRTB bid, a widget visit, or a VAST view. */
export const SOAK_ACTIONS = ['bid', 'imp', 'vast'] as const;
export type SoakAction = (typeof SOAK_ACTIONS)[number];

export interface SoakSettings {
  minutes: number;
  warmupMinutes: number;
  /** Actions per second over the mix. */
  rate: number;
  /** Each action's share of the rate (weights, not percentages). */
  mix: Record<SoakAction, number>;
  sampleSeconds: number;
  engines: number;
  /** The most an engine's or the admin's RSS and heap may grow after the warm-up, MiB per minute. */
  maxSlopeMiBPerMin: number;
  /** Between two configuration changes through the admin API. */
  changeMs: number;
}

/** A number from an environment variable: text, blanks and NaN refused with the value named. */
const num = (def: number) =>
  z
    .string()
    .trim()
    .default(String(def))
    .transform((s, ctx) => {
      const n = s === '' ? NaN : Number(s);
      if (!Number.isFinite(n)) {
        ctx.addIssue({ code: 'custom', message: `must be a number, got "${s}"` });
        return z.NEVER;
      }
      return n;
    });
const int = (def: number, min: number, max: number) =>
  num(def).pipe(
    z.number().int('must be a whole number').min(min, `must be at least ${min}`).max(max, `must be at most ${max}`),
  );

const mixSchema = z
  .string()
  .trim()
  .default('bid:4,imp:4,vast:2')
  .transform((s, ctx) => {
    const mix: Record<SoakAction, number> = { bid: 0, imp: 0, vast: 0 };
    for (const part of s.split(',')) {
      const [name, weight = '1'] = part.split(':').map((x) => x.trim());
      const w = Number(weight);
      if (!SOAK_ACTIONS.includes(name as SoakAction) || !Number.isInteger(w) || w < 0) {
        ctx.addIssue({ code: 'custom', message: `"${part}" is not <${SOAK_ACTIONS.join('|')}>[:<whole weight>]` });
        return z.NEVER;
      }
      mix[name as SoakAction] += w;
    }
    if (mix.bid + mix.imp + mix.vast === 0)
      ctx.addIssue({ code: 'custom', message: 'gives every action a weight of 0' });
    return mix;
  });

const envSchema = z
  .object({
    BENCH_SOAK_MINUTES: num(30).pipe(
      z
        .number()
        .gt(0, 'must be more than 0')
        .max(7 * 24 * 60, 'must be at most a week'),
    ),
    BENCH_SOAK_WARMUP_MINUTES: num(5).pipe(z.number().min(0, 'must not be negative')),
    BENCH_SOAK_RATE: num(30).pipe(z.number().gt(0, 'must be more than 0').max(5_000, 'must be at most 5000')),
    BENCH_SOAK_MIX: mixSchema,
    BENCH_SOAK_SAMPLE_SECONDS: int(10, 1, 600),
    BENCH_SOAK_ENGINES: int(1, 1, 16),
    BENCH_SOAK_MAX_SLOPE: num(1).pipe(z.number().gt(0, 'must be more than 0')),
    BENCH_SOAK_CHANGE_MS: int(1_000, 100, 60_000),
  })
  .superRefine((e, ctx) => {
    // The slope needs a few samples after the warm-up; fewer would make a verdict of noise. (A run of no length is named above.)
    if (!(e.BENCH_SOAK_MINUTES > 0)) return;
    const after = (e.BENCH_SOAK_MINUTES - e.BENCH_SOAK_WARMUP_MINUTES) * 60;
    if (after < 3 * e.BENCH_SOAK_SAMPLE_SECONDS)
      ctx.addIssue({
        code: 'custom',
        path: ['BENCH_SOAK_WARMUP_MINUTES'],
        message: `must leave at least 3 samples (${(3 * e.BENCH_SOAK_SAMPLE_SECONDS) / 60} min) of the ${e.BENCH_SOAK_MINUTES} min run after it`,
      });
  });

/** The soak's settings from `env`; throws one error naming every bad variable. */
export function parseSoakSettings(env: Readonly<Record<string, string | undefined>>): SoakSettings {
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${String(i.path[0] ?? 'settings')}: ${i.message}`);
    throw new Error(`bench:soak: bad settings\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    minutes: e.BENCH_SOAK_MINUTES,
    warmupMinutes: e.BENCH_SOAK_WARMUP_MINUTES,
    rate: e.BENCH_SOAK_RATE,
    mix: e.BENCH_SOAK_MIX,
    sampleSeconds: e.BENCH_SOAK_SAMPLE_SECONDS,
    engines: e.BENCH_SOAK_ENGINES,
    maxSlopeMiBPerMin: e.BENCH_SOAK_MAX_SLOPE,
    changeMs: e.BENCH_SOAK_CHANGE_MS,
  };
}
