import { Periodic } from '@adnet/runtime/periodic';
import { attemptDueAt, postbackTarget } from '../domain/postback-rules.ts';
import type { ConversionStatus, PostbackTarget } from '../domain/postback-rules.ts';
import type { Logger } from '../log.ts';
import type { Notifier } from '../mail/notifier.ts';
import type { UserStore } from '../storage/users.ts';
import type { ConversionStore } from './conversion-store.ts';
import { callTracker } from './tracker-call.ts';
import type { TrackerAnswer, TrackerPorts } from './tracker-call.ts';

/** The advertiser's postback URL, the tracker call, and the notice when the last attempt fails. */
export interface PostbackPorts extends TrackerPorts {
  log: Logger;
  users: Pick<UserStore, 'get'>;
  notifier: Pick<Notifier, 'notify'>;
}

export interface PostbackWorkerOptions {
  svc: PostbackPorts;
  store: ConversionStore;
  /** Injected so tests can walk the 2-hour schedule without waiting. */
  now?: () => number;
  leaseMs?: number;
  /** Attempts in flight at once; default POSTBACK_CONCURRENCY. */
  concurrency?: number;
  /** Attempts in flight at once to one host and for one advertiser; default POSTBACK_HOST_CONCURRENCY. */
  hostConcurrency?: number;
}

/** One leased attempt, ready to make. */
interface Job {
  member: string;
  advertiser: number;
  conversion: number;
  campaign: number;
  status: string;
  attempt: number;
  target: PostbackTarget;
  /** The tracker's host name; '' when there is nothing to call (the URL could not be made). */
  host: string;
}

/** Jobs per batch and per advertiser in a batch, as multiples of the two concurrency limits. */
const BATCH_PER_SLOT = 4;
/** How deep the lease looks past the jobs it takes, so one advertiser's backlog is stepped over. */
const SCAN_PER_BATCH = 20;

/**
 * Calls advertisers' trackers. Jobs live in a Redis sorted set by due time and are leased before each
 * attempt, so several admin instances never make the same attempt and one that dies mid-attempt leaves
 * it to be retried. An attempt fails on a bad pattern, a URL that cannot be made, a refused address, a
 * DNS failure, a timeout, a bad redirect or a non-2xx answer, each recorded with its reason; after the
 * fifth failure the conversion is marked `postback_failed` (it still counts).
 *
 * One advertiser cannot hold the others up: a batch takes a bounded share of each advertiser's due
 * jobs; attempts run side by side (`concurrency`), at most `hostConcurrency` to one host and for one
 * advertiser; a host that times out gets no more attempts in that pass; and no attempt starts once a
 * pass is older than one attempt's time limit. Jobs not begun go back to the queue, due, uncounted.
 */
export class PostbackWorker {
  private worker: Periodic | undefined;
  /** Attempts made by this worker: answered 2xx, failed with another scheduled, failed for the last time. */
  readonly counts = { ok: 0, retry: 0, failed: 0 };
  private readonly now: () => number;
  private readonly concurrency: number;
  private readonly hostConcurrency: number;

  constructor(private readonly o: PostbackWorkerOptions) {
    this.now = o.now ?? Date.now;
    this.concurrency = o.concurrency ?? o.svc.config.postback.concurrency;
    this.hostConcurrency = o.hostConcurrency ?? o.svc.config.postback.hostConcurrency;
  }

  start(intervalMs: number): void {
    this.shell(intervalMs).start();
  }

  /** Finishes the attempts in progress; the rest of the leased batch goes back to the queue, due now. */
  stop(): Promise<void> {
    return this.shell().stop();
  }

  runOnce(): Promise<void> {
    return this.shell().runOnce();
  }

  private shell(intervalMs = 1_000): Periodic {
    this.worker ??= new Periodic({
      intervalMs,
      pass: () => this.pass(),
      onError: (err) => this.o.svc.log.warn({ err }, 'postback pass failed'),
    });
    return this.worker;
  }

  private async pass(): Promise<void> {
    const { store } = this.o;
    const { timeoutMs } = this.o.svc.config.postback;
    const openUntil = Date.now() + timeoutMs;
    const batch = this.concurrency * BATCH_PER_SLOT;
    // A pass lasts at most two time limits (the last attempt starts just before the first one's ends):
    // the lease outlasts it, so no other instance takes a job this one is still about to make.
    const leaseMs = this.o.leaseMs ?? Math.max(60_000, 2 * timeoutMs + 30_000);
    const leased = await store.lease(this.now(), leaseMs, batch, {
      perAdvertiser: this.hostConcurrency * BATCH_PER_SLOT,
      scan: batch * SCAN_PER_BATCH,
    });
    const jobs = (await Promise.all(leased.map((member) => this.prepare(member)))).filter(
      (j): j is Job => j !== undefined,
    );
    const notBegun = await this.runAll(jobs, () => this.shell().stopping || Date.now() >= openUntil);
    if (notBegun.length) {
      await store.release(notBegun, this.now());
      this.o.svc.log.info(
        { event: 'postback.deferred', count: notBegun.length },
        'postback attempts handed back to the queue',
      );
    }
  }

  /** The job's conversion and tracker URL; undefined when there is nothing to send (or it could not be read). */
  private async prepare(member: string): Promise<Job | undefined> {
    const { svc, store } = this.o;
    const [adv, id, status, attempt] = member.split(':');
    try {
      const conversion = await store.get(Number(adv), Number(id));
      const user = await svc.users.get(Number(adv));
      if (!conversion || !user?.postbackUrl) {
        await store.done(member);
        return undefined;
      }
      const target = postbackTarget(user.postbackUrl, {
        click_id: conversion.click_id,
        payout_cents: conversion.payout_cents,
        status: status as ConversionStatus,
        geo: conversion.country,
        device: conversion.device,
        os: conversion.os,
        browser: conversion.browser,
        vertical: conversion.vertical,
        campaign_id: conversion.campaign_id,
        format: conversion.format ?? '',
      });
      const host = target.ok ? new URL(target.url).hostname : '';
      return {
        member,
        advertiser: conversion.advertiser_id,
        conversion: conversion.id,
        campaign: conversion.campaign_id,
        status: status as string,
        attempt: Number(attempt),
        target,
        host,
      };
    } catch (err) {
      // Redis trouble: the lease runs out and the job comes round again.
      svc.log.warn({ err, member }, 'postback job could not be read');
      return undefined;
    }
  }

  /**
   * Runs the jobs within the limits; returns the members of those not begun (their host timed out in
   * this pass, or `closed` said no more may start).
   */
  private runAll(jobs: Job[], closed: () => boolean): Promise<string[]> {
    const waiting = [...jobs];
    const notBegun: string[] = [];
    const perHost = new Map<string, number>();
    const perAdvertiser = new Map<number, number>();
    const slowHosts = new Set<string>();
    let inFlight = 0;
    const bump = <K>(m: Map<K, number>, k: K, by: number) => m.set(k, (m.get(k) ?? 0) + by);
    return new Promise((resolve) => {
      const pump = () => {
        const shut = closed();
        for (let i = 0; i < waiting.length && inFlight < this.concurrency;) {
          const job = waiting[i] as Job;
          if (shut || slowHosts.has(job.host)) {
            notBegun.push(job.member);
            waiting.splice(i, 1);
            continue;
          }
          const hostFull = job.host !== '' && (perHost.get(job.host) ?? 0) >= this.hostConcurrency;
          if (hostFull || (perAdvertiser.get(job.advertiser) ?? 0) >= this.hostConcurrency) {
            i++;
            continue;
          }
          waiting.splice(i, 1);
          inFlight++;
          bump(perHost, job.host, 1);
          bump(perAdvertiser, job.advertiser, 1);
          void this.attempt(job).then((reason) => {
            if (reason === 'timeout' && job.host !== '') slowHosts.add(job.host);
            inFlight--;
            bump(perHost, job.host, -1);
            bump(perAdvertiser, job.advertiser, -1);
            pump();
          });
        }
        if (inFlight === 0) {
          notBegun.push(...waiting.map((j) => j.member));
          resolve(notBegun);
        }
      };
      pump();
    });
  }

  /** One attempt, recorded with its outcome; resolves to the failure's reason (null on success). Never rejects. */
  private async attempt(job: Job): Promise<TrackerAnswer['reason']> {
    const { svc, store } = this.o;
    let answer: TrackerAnswer | undefined;
    try {
      answer = await callTracker(svc, job.target);
      const { ok } = answer;
      // The next attempt is queued and the attempt recorded before this one is let go: a crash in between
      // repeats an attempt (trackers dedupe by click id) rather than losing the retry. Only the attempt is
      // written: the status stays whatever a postback made it meanwhile.
      const next = ok ? undefined : attemptDueAt(this.now(), job.attempt + 1);
      if (next !== undefined) await store.schedule({ ...job, attempt: job.attempt + 1 }, next);
      const failed = !ok && next === undefined;
      await store.recordAttempt(
        job.advertiser,
        job.conversion,
        {
          at: new Date(this.now()).toISOString(),
          attempt: job.attempt,
          status: answer.status,
          reason: answer.reason,
          error: answer.error,
        },
        failed,
      );
      await store.done(job.member);
      this.counts[ok ? 'ok' : failed ? 'failed' : 'retry']++;
      if (failed) {
        // At most one email per campaign per day, however many of its conversions fail.
        const day = new Date(this.now()).toISOString().slice(0, 10);
        await svc.notifier.notify(
          {
            kind: 'postback_failing',
            user_id: job.advertiser,
            campaign_id: job.campaign,
            conversion_id: job.conversion,
          },
          { once: { key: `pbfail:${job.advertiser}:${job.campaign}:${day}`, ttlMs: 86_400_000 } },
        );
      }
      svc.log.info(
        {
          event: 'postback.attempt',
          conversionId: job.conversion,
          attempt: job.attempt,
          ok,
          failed,
          ...(answer.ok ? {} : { reason: answer.reason, detail: answer.detail }),
        },
        'postback attempt',
      );
    } catch (err) {
      // Redis trouble while recording: the lease runs out and the attempt is made again.
      svc.log.warn({ err, member: job.member }, 'postback attempt could not be recorded');
    }
    return answer?.reason ?? null;
  }
}
