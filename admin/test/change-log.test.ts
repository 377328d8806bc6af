import type { StoredCampaign } from '@adnet/schemas/api';
import { readChanges, readSnapshot } from '@adnet/schemas/wire/change-log';
import { describe, expect, it } from 'vitest';
import { CFG_NOTICE_CHANNEL } from '../src/storage/keys.ts';
import { connectRedis } from '../src/storage/redis.ts';
import { account, call, validCampaign, useTestApp } from '@adnet/test-support/admin';

const fx = useTestApp();

describe('config change log', () => {
  it('a follower replays every mutation after the last entry it applied and rebuilds the stored state', async () => {
    const a = await account(fx.app, 'advertiser');
    const before = await readSnapshot(fx.app.svc.redis);
    const created = await call<StoredCampaign>(fx.app, 'POST', '/api/adv/campaigns', {
      token: a.token,
      json: validCampaign,
    });
    await call(fx.app, 'PATCH', `/api/adv/campaigns/${created.body.id}`, {
      token: a.token,
      json: { name: 'Second name' },
    });

    const changes = await readChanges(fx.app.svc.redis, before.seq);
    expect(changes.map((c) => [c.kind, c.id, c.op])).toEqual([
      ['campaign', created.body.id, 'put'],
      ['campaign', created.body.id, 'put'],
    ]);
    expect((changes[1]?.value as StoredCampaign).name).toBe('Second name');

    // Resuming from the first entry yields only the second.
    expect((await readChanges(fx.app.svc.redis, changes[0]?.seq ?? '')).map((c) => c.seq)).toEqual([changes[1]?.seq]);

    // Snapshot + replay equals a fresh snapshot.
    const mirror = new Map(before.entities.campaign);
    for (const c of changes) mirror.set(c.id, c.value);
    const now = await readSnapshot(fx.app.svc.redis);
    expect(now.seq).toBe(changes[1]?.seq);
    expect(mirror).toEqual(now.entities.campaign);
  });

  it('announces each change on pub/sub with its log id', async () => {
    const a = await account(fx.app, 'advertiser');
    const sub = connectRedis(fx.redis.url, 'test-sub');
    const got: string[] = [];
    await sub.subscribe(CFG_NOTICE_CHANNEL);
    sub.on('message', (_ch: string, seq: string) => got.push(seq));
    const created = await call<StoredCampaign>(fx.app, 'POST', '/api/adv/campaigns', {
      token: a.token,
      json: validCampaign,
    });
    for (let i = 0; i < 50 && got.length === 0; i++) await new Promise((r) => setTimeout(r, 10));
    const last = await readSnapshot(fx.app.svc.redis);
    expect(got).toEqual([last.seq]);
    expect(last.entities.campaign.get(created.body.id)).toMatchObject({ id: created.body.id });
    await sub.quit();
  });

  it('loses no concurrent update and logs each one once', async () => {
    const a = await account(fx.app, 'advertiser');
    const created = await call<StoredCampaign>(fx.app, 'POST', '/api/adv/campaigns', {
      token: a.token,
      json: validCampaign,
    });
    const start = await readSnapshot(fx.app.svc.redis);
    const id = created.body.id;
    // Each request changes a different field; with lost updates some would vanish.
    const edits = [
      { name: 'N' },
      { vertical: 'dating' },
      { bid_type: 'cpc' },
      { bid_usd: 3 },
      { daily_budget_usd: 99 },
      { geo_include: ['fr'] },
      { languages: ['de'] },
    ];
    const replies = await Promise.all(
      edits.map((json) => call(fx.app, 'PATCH', `/api/adv/campaigns/${id}`, { token: a.token, json })),
    );
    expect(replies.map((r) => r.status)).toEqual(edits.map(() => 200));
    const final = (await fx.app.svc.configStore.read<StoredCampaign>('campaign', id))?.value;
    expect(final).toMatchObject({
      name: 'N',
      vertical: 'dating',
      bid_type: 'cpc',
      bid_micro_cents: 300_000,
      daily_budget_cents: 9_900,
      geo_include: ['fr'],
      languages: ['de'],
    });
    const changes = (await readChanges(fx.app.svc.redis, start.seq)).filter((c) => c.id === id);
    expect(changes).toHaveLength(edits.length);
    expect(changes.at(-1)?.value).toEqual(final);
  });

  it('keeps accounts, config and money across a Redis restart (AOF)', async () => {
    const a = await account(fx.app, 'advertiser');
    const created = await call<StoredCampaign>(fx.app, 'POST', '/api/adv/campaigns', {
      token: a.token,
      json: validCampaign,
    });
    await fx.app.svc.ledger.credit(a.id, 777, 'before restart');
    await fx.redis.restart();
    // The client reconnects by itself; the same token keeps working.
    let listed: Awaited<ReturnType<typeof call<{ campaigns: { id: number }[] }>>> | undefined;
    for (let i = 0; i < 100; i++) {
      listed = await call<{ campaigns: { id: number }[] }>(fx.app, 'GET', '/api/adv/campaigns', {
        token: a.token,
      }).catch(() => undefined);
      if (listed?.status === 200) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(listed?.body.campaigns.map((c) => c.id)).toEqual([created.body.id]);
    expect(await fx.app.svc.ledger.balance(a.id)).toBe(777);
  });
});
