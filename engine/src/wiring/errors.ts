import type { Logger } from 'pino';
import type { EngineMetrics } from '../observability/engine-metrics.ts';

export interface ErrorReporting {
  /** Counts the error under `what` and logs it, with the request's id when a request met it. */
  report: (what: string, err: unknown, requestId?: string) => void;
  /** `report` bound to one `what`, for a worker's or a client's error callback. */
  onError: (what: string) => (err: unknown) => void;
}

export function errorReporting(metrics: EngineMetrics, log: Logger): ErrorReporting {
  const report = (what: string, err: unknown, requestId?: string) => {
    metrics.error(what);
    log.warn(
      { event: 'engine.error', what, requestId, err: err instanceof Error ? err.message : String(err) },
      'engine error',
    );
  };
  return { report, onError: (what) => (err) => report(what, err) };
}
