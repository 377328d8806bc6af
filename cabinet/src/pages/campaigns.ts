import { api } from '../api.ts';
import type { Outputs } from '../api.ts';
import { actionButton, badge, h, notify, usd } from '../dom.ts';
import type { PageContext } from '../router.ts';
import { BASE } from '../router.ts';
import { deliveryText } from '../delivery-text.ts';
import { launchChecklist } from '../launch-checklist.ts';
import { creativesSection } from './creatives.ts';
import { aiSection } from './ai.ts';
import { videoSection } from './video.ts';
import { trafficSourcesSection } from './traffic-sources.ts';
import { zoneBidsSection } from './zone-bids.ts';
import { rulesSection } from './rules.ts';

type Campaign = Outputs['adv']['campaigns']['get'];

export function stateButtons(c: Campaign, after: () => Promise<void>): HTMLElement[] {
  const out: HTMLElement[] = [];
  if (c.status === 'draft' || c.status === 'paused') {
    out.push(
      actionButton(
        'Activate',
        async () => {
          const active = await api.adv.campaigns.activate.mutate({ id: c.id });
          // Active is not the same as serving: say what still holds it, and what happens next.
          if (active.delivery.reasons.includes('no_funds'))
            notify(
              `${c.name} is active but wins nothing until you add funds; it starts by itself once you do`,
              'error',
            );
          else if (!active.delivery.serving)
            notify(`${c.name} is active; ${deliveryText(active.delivery).toLowerCase()}`);
          else notify(`Campaign ${c.name} is active`);
          await after();
        },
        { 'aria-label': `Activate ${c.name}` },
      ),
    );
  }
  if (c.status === 'active') {
    out.push(
      actionButton(
        'Pause',
        async () => {
          await api.adv.campaigns.pause.mutate({ id: c.id });
          notify(`Campaign ${c.name} is paused`);
          await after();
        },
        { 'aria-label': `Pause ${c.name}` },
      ),
    );
  }
  return out;
}

function capScheduleSummary(c: Campaign): string {
  const parts = [
    c.frequency_cap ? `at most ${c.frequency_cap.impressions} per user in ${c.frequency_cap.period_hours} h` : '',
    c.start_at ? `from ${c.start_at}` : '',
    c.end_at ? `until ${c.end_at}` : '',
    c.dayparting ? `dayparted (${c.timezone})` : '',
  ].filter(Boolean);
  return parts.length ? ` · ${parts.join(' · ')}` : '';
}

/** How often an open campaign page looks for moderation results. */
const MODERATION_POLL_MS = 10_000;

/**
 * An open campaign page asks now and then for its creatives' states and re-renders when a
 * verdict arrives (uploads made on the page included), so the result shows without a reload. It
 * stops once the page is left.
 */
function watchModeration(ctx: PageContext, c: Campaign, marker: HTMLElement): void {
  if (c.status === 'archived') return;
  const states = async () =>
    new Map((await api.adv.creatives.list.query({ campaign_id: c.id })).creatives.map((x) => [x.id, x.status]));
  // What the page showed when it rendered; a creative uploaded since is new to it.
  const shown = states();
  const timer = setInterval(() => {
    if (!marker.isConnected) return clearInterval(timer);
    void Promise.all([shown, states()])
      .then(async ([before, now]) => {
        // A verdict: a waiting creative decided, or one uploaded since and already decided.
        const decided = [...now].some(
          ([id, st]) =>
            st !== 'pending_moderation' && (before.get(id) ?? 'pending_moderation') === 'pending_moderation',
        );
        if (!decided || !marker.isConnected) return;
        clearInterval(timer);
        notify('Moderation finished for a creative of this campaign');
        await campaignPage(ctx);
      })
      .catch(() => undefined);
  }, MODERATION_POLL_MS);
}

export async function campaignPage(ctx: PageContext): Promise<void> {
  const id = Number(ctx.params.id);
  const c = await api.adv.campaigns.get.query({ id });
  ctx.main.replaceChildren(
    h('p', {}, h('a', { href: `${BASE}/campaigns` }, '← Campaigns')),
    h('div', { class: 'title-row' }, h('h1', {}, c.name), badge(c.status), ...stateButtons(c, () => campaignPage(ctx))),
    h(
      'p',
      {},
      `${c.format.replace(/_/g, ' ')} · spent today ${usd(c.daily_spent_cents)} of ${usd(c.daily_budget_cents)}${capScheduleSummary(c)}`,
    ),
    h('p', { class: 'delivery', 'aria-live': 'polite' }, deliveryText(c.delivery)),
    launchChecklist(c),
    h('p', {}, h('a', { href: `${BASE}/campaigns/${c.id}/edit`, class: 'button' }, 'Edit settings')),
    await creativesSection(c),
    await trafficSourcesSection(c, () => campaignPage(ctx)),
    ...(await zoneBidsSection(c)),
    await rulesSection(c, () => campaignPage(ctx)),
    aiSection(c),
    videoSection(c),
  );
  watchModeration(ctx, c, ctx.main.firstElementChild as HTMLElement);
}
