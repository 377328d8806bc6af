import type { Outputs } from './api.ts';
import { countryName } from './countries.ts';
import { creativeStepText } from './delivery-text.ts';
import { h } from './dom.ts';
import { BASE } from './router.ts';

type Campaign = Outputs['adv']['campaigns']['get'];
type Creatives = Parameters<typeof creativeStepText>[0];

export interface Step {
  label: string;
  done: boolean;
  /** What to do next, or what holds. */
  detail: string;
}

/**
 * What stands between a campaign and its first impression, from its delivery status (the engines' rules) and its
 * creatives as the API lists them; `wait` is the one moderation estimate, in words.
 */
export function launchSteps(
  c: Pick<Campaign, 'delivery' | 'geo_include' | 'device_types' | 'status'>,
  creatives: Creatives,
  wait: string,
): Step[] {
  const has = (r: Campaign['delivery']['reasons'][number]) => c.delivery.reasons.includes(r);
  const geo = c.geo_include.length ? c.geo_include.map(countryName).join(', ') : 'every country';
  const devices = c.device_types.length ? c.device_types.join(', ') : 'every device';
  const scheduled = has('not_started')
    ? 'it has not started yet'
    : has('ended')
      ? 'it has ended'
      : has('outside_schedule')
        ? 'outside its hours right now'
        : 'running now';
  return [
    {
      label: 'Creative approved',
      done: !has('no_approved_creative'),
      detail: has('no_approved_creative') ? creativeStepText(creatives, wait) : 'At least one creative can serve.',
    },
    {
      label: 'Funds',
      done: !has('no_funds'),
      detail: has('no_funds') ? 'Your balance is empty: add funds on the Billing page.' : 'Your balance covers spend.',
    },
    {
      label: 'Budget',
      done: !has('daily_budget_spent') && !has('total_budget_spent'),
      detail: has('total_budget_spent')
        ? 'The total budget is spent: raise it to continue.'
        : has('daily_budget_spent')
          ? "Today's budget is spent; it resumes tomorrow."
          : 'Budget left today.',
    },
    {
      label: 'Schedule',
      done: !has('not_started') && !has('ended') && !has('outside_schedule'),
      detail: `Schedule: ${scheduled}.`,
    },
    { label: 'Targeting', done: true, detail: `Shown in ${geo}, on ${devices}.` },
    {
      label: 'Activated',
      done: c.status === 'active',
      detail:
        c.status === 'active'
          ? 'Active.'
          : c.status === 'archived'
            ? 'Archived: it will not run again.'
            : 'Activate it when ready; it serves once the steps above are green.',
    },
  ];
}

export function launchChecklist(c: Campaign, creatives: Creatives, wait: string): HTMLElement {
  const steps = launchSteps(c, creatives, wait);
  return h(
    'section',
    { class: 'checklist', 'aria-labelledby': 'launch-h' },
    h('h2', { id: 'launch-h' }, c.delivery.serving ? 'Serving' : 'Launch checklist'),
    h(
      'ol',
      {},
      steps.map((s) =>
        h(
          'li',
          { class: s.done ? 'done' : 'todo', 'data-step': s.label },
          h('span', { class: 'mark', 'aria-hidden': 'true' }, s.done ? '✓' : '○'),
          h('strong', {}, s.label),
          h('span', { class: 'offscreen' }, s.done ? ' (done)' : ' (to do)'),
          ' ',
          s.label === 'Funds' && !s.done
            ? h(
                'span',
                {},
                s.detail.replace(' on the Billing page.', ' '),
                h('a', { href: `${BASE}/billing#add-funds` }, 'on the Billing page'),
              )
            : s.detail,
        ),
      ),
    ),
  );
}
