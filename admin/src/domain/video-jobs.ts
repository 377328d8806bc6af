/** What a provider says about a job when asked. */
export type ProviderState =
  | { status: 'processing' }
  | { status: 'completed'; videoUrl: string; durationSec: number }
  | { status: 'failed'; reason: string };

/** What the poller does with a job after one look at the provider. */
export type NextStep =
  { kind: 'wait' } | { kind: 'complete'; videoUrl: string; durationSec: number } | { kind: 'fail'; reason: string };

/**
 * The next step of a processing job (completed and failed are final; the job
 * store's finish step enforces that). A job the provider keeps "processing"
 * longer than `maxAgeMs`, or cannot be asked about for that long, fails so
 * that its cost is refunded rather than held forever.
 */
export function nextStep(state: ProviderState | 'unreachable', ageMs: number, maxAgeMs: number): NextStep {
  if (state !== 'unreachable' && state.status === 'completed')
    return { kind: 'complete', videoUrl: state.videoUrl, durationSec: state.durationSec };
  if (state !== 'unreachable' && state.status === 'failed') return { kind: 'fail', reason: state.reason };
  if (ageMs >= maxAgeMs) {
    return {
      kind: 'fail',
      reason:
        state === 'unreachable'
          ? 'the video provider could not be reached in time'
          : 'the video provider did not finish in time',
    };
  }
  return { kind: 'wait' };
}

/** Spoken length of a script at an average 150 words per minute; at least one second. */
export function speechSeconds(script: string): number {
  const words = script.trim().split(/\s+/).filter(Boolean).length;
  return Math.max(1, Math.ceil((words * 60) / 150));
}
