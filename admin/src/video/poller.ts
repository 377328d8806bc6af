import { Periodic } from '@adnet/runtime/periodic';
import type { AdminConfig } from '@adnet/schemas/config';
import type { Logger } from '../log.ts';
import type { LedgerStore } from '../storage/ledger.ts';
import type { VideoJobStore } from './job-store.ts';
import type { VideoProvider } from './providers.ts';
import { nextStep } from '../domain/video-jobs.ts';
import type { ProviderState } from '../domain/video-jobs.ts';
import { VideoProviderError } from './providers.ts';
import type { VideoJob } from './job-store.ts';

/** The jobs and their due times, the provider they are polled at, and the ledger a failed job's refund goes to. */
export interface VideoPorts {
  config: Pick<AdminConfig, 'video'>;
  log: Logger;
  videoJobs: Pick<VideoJobStore, 'claimDue' | 'get' | 'forget' | 'reschedule' | 'finish'>;
  videoProvider: Pick<VideoProvider, 'poll'>;
  ledger: Pick<LedgerStore, 'credit'>;
}

/** Jobs looked at per tick; the rest wait for the next tick. */
const BATCH = 50;

/**
 * Advances video jobs in the background. Jobs and their due times live in
 * Redis, so any admin instance (or a restarted one) picks up where another left.
 */
export class VideoPoller {
  private readonly worker: Periodic;

  constructor(
    private readonly svc: VideoPorts,
    private readonly now: () => number = Date.now,
  ) {
    this.worker = new Periodic({
      intervalMs: svc.config.video.pollIntervalMs,
      runAtStart: true,
      pass: () => this.tick(),
      onError: (err) => svc.log.error({ err }, 'video poller tick failed'),
    });
  }

  /** One pass over the due jobs; resolves with how many finished. */
  async tick(): Promise<number> {
    const cfg = this.svc.config.video;
    const ids = await this.svc.videoJobs.claimDue(this.now(), cfg.leaseMs, BATCH);
    let finished = 0;
    for (const id of ids) {
      try {
        const job = await this.svc.videoJobs.get(Number(id));
        // A due entry without its job (deleted by hand) would otherwise come back every lease.
        if (!job) await this.svc.videoJobs.forget(Number(id));
        else if (await this.advance(job)) finished++;
      } catch (err) {
        // One job's trouble must not hold up the others; this one comes back when its lease ends.
        this.svc.log.error({ err, jobId: id }, 'video job advance failed');
      }
    }
    return finished;
  }

  private async advance(job: VideoJob): Promise<boolean> {
    const { svc } = this;
    let state: ProviderState | 'unreachable';
    try {
      state = await svc.videoProvider.poll(job.provider_job_id);
    } catch (err) {
      if (!(err instanceof VideoProviderError)) throw err;
      svc.log.warn({ event: 'video.poll_failed', jobId: job.job_id, err: err.message }, 'video poll failed');
      state = 'unreachable';
    }
    const step = nextStep(state, this.now() - Date.parse(job.created_at), svc.config.video.maxAgeMs);
    const at = new Date(this.now());
    if (step.kind === 'wait') {
      await svc.videoJobs.reschedule(job.job_id, this.now() + svc.config.video.pollIntervalMs);
      return false;
    }
    if (step.kind === 'complete') {
      const moved = await svc.videoJobs.finish(
        job.job_id,
        'completed',
        { videoUrl: step.videoUrl, durationSec: step.durationSec },
        at,
      );
      if (moved) svc.log.info({ event: 'video.completed', jobId: job.job_id }, 'video completed');
      return moved;
    }
    const moved = await svc.videoJobs.finish(job.job_id, 'failed', { reason: step.reason }, at);
    // The finish step succeeds for one caller only, so the refund is paid once.
    if (moved && job.cost_cents > 0)
      await svc.ledger.credit(job.advertiser_id, job.cost_cents, `video job ${job.job_id}: refund, ${step.reason}`);
    if (moved) svc.log.info({ event: 'video.failed', jobId: job.job_id, reason: step.reason }, 'video failed');
    return moved;
  }

  start(): void {
    this.worker.start();
  }

  /** Stops scheduling and waits for the tick in progress. */
  stop(): Promise<void> {
    return this.worker.stop();
  }
}
