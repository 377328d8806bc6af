import { Periodic } from '@adnet/runtime/periodic';
import { attemptDueAt, fillPostbackUrl } from '../domain/postback-rules.ts';
import type { ConversionStatus } from '../domain/postback-rules.ts';
import type { Services } from '../services.ts';
import type { ConversionStore } from './conversion-store.ts';
import { callTracker } from './tracker-call.ts';

export interface PostbackWorkerOptions {
  svc: Services;
  store: ConversionStore;
  /** Injected so tests can walk the 2-hour schedule without waiting. */
  now?: () => number;
  leaseMs?: number;
}

/**
 * Calls advertisers' trackers. Jobs live in a Redis sorted set by due time and
 * are leased before each attempt, so several admin instances never make the
 * same attempt and one that dies mid-attempt leaves it to be retried. An attempt
 * fails on a network error, a timeout or a non-2xx answer; after the fifth
 * failure the conversion is marked `postback_failed` (it still counts).
 */
export class PostbackWorker {
  private worker: Periodic | undefined;
  /** Attempts made by this worker: answered 2xx, failed with another scheduled, failed for the last time. */
  readonly counts = { ok: 0, retry: 0, failed: 0 };
  private readonly now: () => number;

  constructor(private readonly o: PostbackWorkerOptions) {
    this.now = o.now ?? Date.now;
  }

  start(intervalMs: number): void {
    this.shell(intervalMs).start();
  }

  /** Finishes the attempt in progress; the rest of the leased batch goes back to the queue, due now. */
  stop(): Promise<void> {
    return this.shell().stop();
  }

  runOnce(): Promise<void> {
    return this.shell().runOnce();
  }

  private shell(intervalMs = 1_000): Periodic {
    this.worker ??= new Periodic({ intervalMs, pass: () => this.pass(), onError: (err) => this.o.svc.log.warn({ err }, 'postback pass failed') });
    return this.worker;
  }

  private async pass(): Promise<void> {
    const { svc, store } = this.o;
    const leased = await store.lease(this.now(), this.o.leaseMs ?? 60_000, 50);
    for (const [i, member] of leased.entries()) {
      if (this.shell().stopping) {
        await store.release(leased.slice(i), this.now());
        return;
      }
      const [adv, id, status, attempt] = member.split(':');
      const conversion = await store.get(Number(adv), Number(id));
      const user = await svc.users.get(Number(adv));
      if (!conversion || !user?.postbackUrl) {
        await store.done(member);
        continue;
      }
      const url = fillPostbackUrl(user.postbackUrl, {
        click_id: conversion.click_id,
        payout_cents: conversion.payout_cents,
        status: status as ConversionStatus,
        geo: conversion.country,
        device: conversion.device,
        os: conversion.os,
        browser: conversion.browser,
        vertical: conversion.vertical,
        campaign_id: conversion.campaign_id,
      });
      const { ok, status: httpStatus, error } = await callTracker(svc, url);
      const n = Number(attempt);
      // The next attempt is queued and the attempt recorded before this one is let go: a crash in between
      // repeats an attempt (trackers dedupe by click id) rather than losing the retry. Only the attempt is
      // written: the status stays whatever a postback made it meanwhile.
      const next = ok ? undefined : attemptDueAt(this.now(), n + 1);
      if (next !== undefined) await store.schedule(conversion.advertiser_id, conversion.id, status as string, n + 1, next);
      const failed = !ok && next === undefined;
      await store.recordAttempt(
        conversion.advertiser_id,
        conversion.id,
        { at: new Date(this.now()).toISOString(), attempt: n, status: httpStatus, error },
        failed,
      );
      await store.done(member);
      this.counts[ok ? 'ok' : failed ? 'failed' : 'retry']++;
      svc.log.info({ event: 'postback.attempt', conversionId: conversion.id, attempt: n, ok, failed }, 'postback attempt');
    }
  }
}
