import type { PostbackInput, PostbackReceipt, StoredCampaign } from '@adnet/schemas/api';
import type { EngineEvent } from '@adnet/schemas/events';
import { randomUUID } from 'node:crypto';
import {
  CONVERSION_STATUSES,
  attemptDueAt,
  postbackSignature,
  signatureMatches,
  statusMove,
} from '../domain/postback-rules.ts';
import type { ConversionStatus } from '../domain/postback-rules.ts';
import { AppError, fieldErrors } from '../errors.ts';
import type { Services } from '../services.ts';
import type { Conversion, ConversionStore } from './conversion-store.ts';
import { joinConverters } from '../repos/audiences.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * POST (form) or GET (query) /postback/in: the secret names the advertiser, the
 * HMAC proves the fields, the click must be that advertiser's, and the txid
 * deduplicates. Answers `{ok, conversion_id, duplicate, status}`.
 */
export async function receivePostback(
  svc: Services,
  store: ConversionStore,
  input: PostbackInput,
  now = Date.now(),
): Promise<PostbackReceipt> {
  if (!input.secret) throw new AppError('unauthorized', 'Missing postback secret');
  const advertiser = await svc.users.getByPostbackSecret(input.secret);
  if (!advertiser) throw new AppError('unauthorized', 'Unknown postback secret');

  const errors: Record<string, string> = {};
  if (!input.click_id || !UUID.test(input.click_id)) errors.click_id = 'must be the click UUID';
  if (!input.payout || !/^\d{1,10}$/.test(input.payout)) errors.payout = 'must be an integer number of cents';
  if (!CONVERSION_STATUSES.includes(input.status as ConversionStatus))
    errors.status = `must be one of: ${CONVERSION_STATUSES.join(', ')}`;
  if (!input.txid || !/^[\x21-\x7e]{1,128}$/.test(input.txid)) errors.txid = 'must be 1-128 printable characters';
  if (Object.keys(errors).length) throw fieldErrors(errors);
  const fields = {
    click_id: input.click_id as string,
    payout: input.payout as string,
    status: input.status as ConversionStatus,
    txid: input.txid as string,
  };
  if (!input.sig || !signatureMatches(input.sig, postbackSignature(advertiser.postbackSecret, fields)))
    throw new AppError('unauthorized', 'Invalid signature');

  const click = await store.click(fields.click_id);
  if (!click) {
    // An engine still holds journaled clicks from a Redis outage: this one may be among them, so the tracker is
    // asked to try again rather than told it is unknown (trackers drop a conversion on 404).
    if (await store.clicksReplaying())
      throw new AppError(
        'unavailable',
        `click_id ${fields.click_id} is not recorded yet: clicks from an outage are being replayed; try again`,
        {
          retryAfterSeconds: 30,
        },
      );
    throw new AppError('not_found', `Unknown click_id ${fields.click_id}`);
  }
  if (click.advertiser_id !== advertiser.id)
    throw new AppError('forbidden', 'This click belongs to another advertiser');

  const stamp = new Date(now).toISOString();
  const fresh: Conversion = {
    id: await store.nextId(),
    advertiser_id: advertiser.id,
    click_id: fields.click_id.toLowerCase(),
    txid: fields.txid,
    payout_cents: Number(fields.payout),
    status: fields.status,
    postback_failed: false,
    campaign_id: click.campaign_id,
    creative_id: click.creative_id,
    zone_id: click.zone_id,
    site_id: click.site_id,
    country: click.country ?? '',
    device: click.device ?? '',
    os: click.os ?? '',
    browser: click.browser ?? '',
    vertical: click.vertical ?? '',
    format: click.format ?? '',
    created_at: stamp,
    updated_at: stamp,
    attempts: [],
  };
  const existingId = await store.create(fresh);
  let conversion = fresh;
  let becameApproved = fresh.status === 'approved';
  if (existingId) {
    // Decide from the stored status, then move only if it is still that status: of concurrent postbacks
    // for one conversion, one moves it and the others see the result (a duplicate, or a refused move).
    for (;;) {
      const existing = await store.get(advertiser.id, existingId);
      if (!existing) throw new AppError('internal', 'Conversion record missing');
      const move = statusMove(existing.status, fields.status);
      if (move === 'duplicate')
        return { ok: true, conversion_id: existing.id, duplicate: true, status: existing.status };
      if (move === 'refused')
        throw new AppError(
          'illegal_transition',
          `Conversion is already ${existing.status}; it cannot become ${fields.status}`,
        );
      const moved = await store.move(advertiser.id, existingId, {
        from: existing.status,
        to: fields.status,
        payoutCents: Number(fields.payout),
        at: stamp,
      });
      if (!moved) continue;
      conversion = moved;
      break;
    }
    becameApproved = fields.status === 'approved';
  }
  // Statistics count approved conversions, once: when a conversion first becomes approved.
  if (becameApproved) {
    const event: EngineEvent = {
      id: randomUUID(),
      type: 'conversion',
      ts: now,
      engine: 'admin',
      integration: click.integration,
      format: click.format,
      campaign_id: click.campaign_id,
      creative_id: click.creative_id,
      advertiser_id: advertiser.id,
      publisher_id: click.publisher_id,
      site_id: click.site_id,
      zone_id: click.zone_id,
      source: click.source,
      country: click.country,
      device: click.device,
      os: click.os,
      browser: click.browser,
      // The advertiser's revenue in the statistics (ROI): the payout as approved, counted with the conversion, once.
      payout_cents: conversion.payout_cents,
    };
    await store.emit(event, svc.config.events.streamMaxLen);
    // The converter joins the advertiser's audiences of this campaign's conversions (docs/audiences.md).
    await joinConverters(svc, click, now);
    // The campaign's rotation learns from conversions once it has any (engine/src/rotation/).
    await store.countForRotation(click.campaign_id, click.creative_id);
    // A target CPA counts it on the click's zone, once: only this postback moved the conversion to approved.
    const campaign = await svc.configStore.read<StoredCampaign>('campaign', click.campaign_id);
    if (campaign?.value.target_cpa_cents && click.zone_id > 0)
      await store.countForTargetCpa(click.campaign_id, click.zone_id);
    // Then marked, so that the engines' next refresh reads this campaign's counts. A mark that fails must not fail
    // the conversion recorded above (nor skip its postback): the engines' sweep reads the counts within 30 minutes.
    await store.markRotationMoved(click.campaign_id).catch((err: unknown) =>
      svc.log.warn(
        {
          event: 'rotation.mark_failed',
          campaign: click.campaign_id,
          err: err instanceof Error ? err.message : String(err),
        },
        'conversion not marked for the rotation',
      ),
    );
  }
  if (advertiser.postbackUrl)
    await store.schedule(
      { advertiser: advertiser.id, conversion: conversion.id, status: conversion.status, attempt: 1 },
      attemptDueAt(now, 1) as number,
    );
  return { ok: true, conversion_id: conversion.id, duplicate: false, status: conversion.status };
}
